package endpoints

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// resolve replaces every spooled string of v, decoded from j.Data, by its
// contents.
func resolve(t testing.TB, j SpooledJSON, v any) any {
	switch v := v.(type) {
	case string:
		s, err := j.Text(v, 1<<30)
		if err != nil {
			t.Fatalf("Text: %v", err)
		}
		return s
	case []any:
		for i := range v {
			v[i] = resolve(t, j, v[i])
		}
	case map[string]any:
		for k, x := range v {
			v[k] = resolve(t, j, x)
		}
	}
	return v
}

// sameJSON checks that ReadJSON, with strings over max spooled, reads in
// what json.Unmarshal reads.
func sameJSON(t testing.TB, in string, max int, dir string) {
	var want any
	if json.Unmarshal([]byte(in), &want) != nil {
		return
	}
	j, err := Spool{Dir: dir, InMemory: 64}.ReadJSON(iotest.HalfReader(strings.NewReader(in)), max)
	if err != nil {
		t.Fatalf("ReadJSON(%q): %v", in, err)
	}
	defer j.Remove()
	var got any
	if err := json.Unmarshal(j.Data, &got); err != nil {
		t.Fatalf("ReadJSON(%q).Data = %q does not decode: %v", in, j.Data, err)
	}
	if got = resolve(t, j, got); !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadJSON(%q) reads %#v, want %#v", in, got, want)
	}
}

func TestReadJSONSpoolsLongStrings(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("QUJD", 50000) + `\/+\n\"\\\u00e9\ud83d\ude00`
	in := `{"data":[{"b64_json":"` + big + `","revised_prompt":"a \"short\" one"}],"n":[1,2.5e3,true,null]}`
	j, err := Spool{Dir: dir}.ReadJSON(strings.NewReader(in), 1024)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Data) > 200 || len(j.strings) != 1 {
		t.Fatalf("the long string stayed in the text (%d bytes, %d spooled)", len(j.Data), len(j.strings))
	}
	var ans struct {
		Data []struct {
			B64 string `json:"b64_json"`
		}
	}
	if err := json.Unmarshal(j.Data, &ans); err != nil || !j.Spooled(ans.Data[0].B64) {
		t.Fatalf("%v %q", err, j.Data)
	}
	r, err := j.Open(ans.Data[0].B64)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if want := strings.Repeat("QUJD", 50000) + "/+\n\"\\é😀"; string(got) != want {
		t.Fatalf("the spooled string reads back as %q…", got[len(got)-20:])
	}
	j.Remove()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("Remove left %d files", len(left))
	}
	sameJSON(t, in, 16, dir)

	// Over the limit: refused, nothing left behind.
	_, err = Spool{Dir: dir, Max: 1 << 16}.ReadJSON(strings.NewReader(`{"x":"`+strings.Repeat("A", 1<<17)+`"}`), 1024)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	_, err = Spool{Dir: dir, Max: 1 << 16, InMemory: 1024}.ReadJSON(strings.NewReader(`[`+strings.Repeat("1,", 1<<16)+`1]`), 1024)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err %v, want ErrTooLarge", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("a refused answer left %d files", len(left))
	}
}

func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{`{"a":"bcdefghijklmnop"}`, `["\"\\\/\b\f\n\r\t\u0041\ud83d\ude00", "x"]`, `{"k\"ey":"value that is long enough"}`, `[1, "", {"":""}]`} {
		f.Add(s, 4)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in string, max int) {
		sameJSON(t, in, max%64+1, dir)
	})
}
