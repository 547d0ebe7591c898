package text

import "testing"

func TestRedactURLs(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://admin:PASS@host:8080/v1", "http://admin:REDACTED@host:8080/v1"},
		{"https://tok3n@searx.example/search?q=a@b", "https://REDACTED@searx.example/search?q=a@b"},
		{"openai[0] at http://admin:p@ss@10.0.0.2:9/x is not reachable (Post \"http://admin:p@ss@10.0.0.2:9/x/v1\")",
			"openai[0] at http://admin:REDACTED@10.0.0.2:9/x is not reachable (Post \"http://admin:REDACTED@10.0.0.2:9/x/v1\")"},
		{"HTTP://A:B@H", "HTTP://A:REDACTED@H"},
		{"mail bob@example.com about http://host/x@y", "mail bob@example.com about http://host/x@y"},
		{"no url here", "no url here"},
		{"http://host:8080/path", "http://host:8080/path"},
	} {
		if got := RedactURLs(c.in); got != c.want {
			t.Errorf("RedactURLs(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := RedactURL("http://u:pw@h/"); got != "http://u:REDACTED@h/" {
		t.Errorf("RedactURL: %q", got)
	}
}

func FuzzRedactURLs(f *testing.F) {
	f.Add("http://admin:PASS@host/x")
	f.Add("see https://a:b@c and http://d@e/f")
	f.Fuzz(func(t *testing.T, s string) {
		out := RedactURLs(s)
		if RedactURLs(out) != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, RedactURLs(out))
		}
	})
}
