package sshd

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func limited(t testing.TB, in string, max int, oneByte bool) (string, []int64) {
	var refused []int64
	var r io.Reader = strings.NewReader(in)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	out, err := io.ReadAll(newPasteLimiter(r, max, func(n int64) { refused = append(refused, n) }))
	if err != nil {
		t.Fatal(err)
	}
	return string(out), refused
}

func TestPasteLimiter(t *testing.T) {
	t.Parallel()
	small := "\x1b[200~hello\nworld\x1b[201~"
	big := "\x1b[200~" + strings.Repeat("x", 5000) + "\x1b[201~"
	for _, one := range []bool{false, true} {
		for _, tc := range []struct {
			in, want string
			refused  []int64
		}{
			{"typed keys\r", "typed keys\r", nil},
			{"a" + small + "b", "a" + small + "b", nil},
			{"a" + big + "b" + small, "ab" + small, []int64{5000}},
			{"\x1b[A\x1b[20", "\x1b[A\x1b[20", nil}, // a marker's start at the end stays input
			{big + big, "", []int64{5000, 5000}},
		} {
			got, refused := limited(t, tc.in, 1000, one)
			if got != tc.want || len(refused) != len(tc.refused) || (len(refused) > 0 && refused[0] != tc.refused[0]) {
				t.Errorf("one byte at a time %v: %.40q → %.60q refused %v, want %.60q refused %v", one, tc.in, got, refused, tc.want, tc.refused)
			}
		}
	}
}

// TestPasteLimiterHoldsLittle: a paste far over the limit passes through
// the limiter without it ever holding more than the limit.
func TestPasteLimiterHoldsLittle(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	body := io.LimitReader(zeroReader{}, 100<<20)
	r := io.MultiReader(strings.NewReader("\x1b[200~"), body, strings.NewReader("\x1b[201~typed"))
	var refused int64
	l := newPasteLimiter(r, limit, func(n int64) { refused = n })
	var out bytes.Buffer
	buf := make([]byte, 4096)
	held := 0
	for {
		n, err := l.Read(buf)
		out.Write(buf[:n])
		held = max(held, cap(l.paste)+cap(l.buf))
		if err != nil {
			break
		}
	}
	if out.String() != "typed" || refused != 100<<20 || held > 2*limit {
		t.Fatalf("out %q, refused %d, held up to %d bytes", out.String(), refused, held)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	return len(p), nil
}

// FuzzPasteLimiter: with a limit no paste reaches, the limiter changes
// nothing, however the input is cut.
func FuzzPasteLimiter(f *testing.F) {
	f.Add("\x1b[200~x\x1b[201~", true)
	f.Add("\x1b[200\x1b[200~~\x1b[201", false)
	f.Fuzz(func(t *testing.T, in string, one bool) {
		got, refused := limited(t, in, len(in)+1, one)
		if got != in || len(refused) != 0 {
			t.Fatalf("%q became %q (refused %v)", in, got, refused)
		}
	})
}
