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
