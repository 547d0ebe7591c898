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

// TestRedactURLsQueries: a secret-looking query value — a parameter whose
// name ends in key, token, secret, password, sig(nature), auth or
// credential(s), in any spelling — is hidden in every URL of a text, the
// rest of the URL kept byte for byte; names that only contain such a word
// (keyword, author) are not secrets.
func TestRedactURLsQueries(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"https://mcp.example.com/mcp?token=abc123", "https://mcp.example.com/mcp?token=REDACTED"},
		{"not reachable at http://127.0.0.1:9/mcp?region=eu&api_key=k1&x=1 (refused)", "not reachable at http://127.0.0.1:9/mcp?region=eu&api_key=REDACTED&x=1 (refused)"},
		{"https://s3/x?X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Expires=60", "https://s3/x?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Expires=60"},
		{"wss://h/?accessToken=t#frag", "wss://h/?accessToken=REDACTED#frag"},
		{"https://u:pw@h/?sig=s&q=cats", "https://u:REDACTED@h/?sig=REDACTED&q=cats"},
		{"https://search.example/?q=a&keyword=b&author=c&monkey=d", "https://search.example/?q=a&keyword=b&author=c&monkey=d"},
		{"https://h/?token=", "https://h/?token="},
		{"see ?token=abc without a URL", "see ?token=abc without a URL"},
	} {
		if got := RedactURLs(c.in); got != c.want {
			t.Errorf("RedactURLs(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
	// One value, as a configuration error shows it: userinfo also when
	// the value does not parse (no scheme, a "/" in the password).
	for _, c := range []struct{ in, want string }{
		{"admin:pw@host:8080", "admin:REDACTED@host:8080"},
		{"tok@host", "REDACTED@host"},
		{"http://admin:p/w@host", "http://admin:REDACTED@host"},
		{"http://host/users/@me?token=t", "http://host/users/@me?token=REDACTED"},
		{"bob@example.com", "REDACTED@example.com"},
		{"plain", "plain"},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedactArgs: a command line's secrets — the value after a flag named
// like one, a flag's =value, a NAME_KEY=value assignment, an
// "Authorization: …" header, a URL's password or token — are hidden; the
// flags, the names and everything else are kept, so the line still says
// what runs.
func TestRedactArgs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want []string }{
		{[]string{"--token", "ghp_1", "--stdio"}, []string{"--token", "REDACTED", "--stdio"}},
		{[]string{"--password=hunter2", "-p", "8080"}, []string{"--password=REDACTED", "-p", "8080"}},
		{[]string{"--api-key", "sk-1", "--apiKey=sk-2", "--access_token", "t"}, []string{"--api-key", "REDACTED", "--apiKey=REDACTED", "--access_token", "REDACTED"}},
		{[]string{"-e", "OPENAI_API_KEY=sk-3", "GITHUB_TOKEN=ghp_2", "DEBUG=1"}, []string{"-e", "OPENAI_API_KEY=REDACTED", "GITHUB_TOKEN=REDACTED", "DEBUG=1"}},
		{[]string{"--header", "Authorization: Bearer abc", "--header=X-Api-Key:k"}, []string{"--header", "Authorization: REDACTED", "--header=X-Api-Key: REDACTED"}},
		{[]string{"mcp-remote", "https://u:pw@h/mcp?token=t"}, []string{"mcp-remote", "https://u:REDACTED@h/mcp?token=REDACTED"}},
		{[]string{"--token-env", "GH_TOKEN", "--token-file", "/run/tok", "/home/me"}, []string{"--token-env", "GH_TOKEN", "--token-file", "/run/tok", "/home/me"}},
		{[]string{"--secret"}, []string{"--secret"}},
		{nil, nil},
	} {
		got := RedactArgs(c.in)
		if len(got) != len(c.want) {
			t.Errorf("RedactArgs(%q) = %q, want %q", c.in, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("RedactArgs(%q) = %q, want %q", c.in, got, c.want)
				break
			}
		}
	}
	in := []string{"--token", "x"}
	RedactArgs(in)
	if in[1] != "x" {
		t.Error("RedactArgs changed its argument")
	}
}
