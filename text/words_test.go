package text

import (
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"filePath", []string{"file", "path"}},
		{"input_image", []string{"input", "image"}},
		{"URLPath", []string{"urlpath"}},
		{"readFile2Now", []string{"read", "file2", "now"}},
		{"Read the file's path.", []string{"read", "the", "file", "s", "path"}},
		{"--out-dir", []string{"out", "dir"}},
		{"çaVa", []string{"a", "va"}},
	} {
		if got := Words(c.in); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
