package scope

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// gateTree builds a home for the gate's tests:
//
//	home/.ssh/id_rsa              a secret
//	home/work/notes.txt           attached: the one granted file
//	home/work/secret.txt          never given
//	home/work/my secret.txt       never given, a blank in its name
//	home/work/café.txt            never given, not ASCII
//	home/work/link.txt -> ../.ssh/id_rsa
//	home/work/notes-link.txt -> notes.txt   a link to the granted file
//	home/work/folder/inner.txt    never given
//	home/work/shared/             a folder the user gave
//	home/work/shared/a.txt        so granted
//	home/work/shared/.hidden      hidden: not granted
//	home/work/shared/out.txt -> ../../.ssh/id_rsa
//	home/notes.txt                never given (beside the granted one's folder)
//	home/work/up -> ../.ssh       a link to a folder: up/../notes.txt is home/notes.txt
//
// The working directory is home/work.
func gateTree(t testing.TB) (home string, s *Scope) {
	t.Helper()
	home = t.TempDir()
	for _, f := range []string{".ssh/id_rsa", "work/notes.txt", "work/secret.txt", "work/my secret.txt", "work/café.txt", "work/folder/inner.txt", "work/shared/a.txt", "work/shared/.hidden", "notes.txt"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("contents of "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.ssh/id_rsa", filepath.Join(home, "work/link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("notes.txt", filepath.Join(home, "work/notes-link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../.ssh/id_rsa", filepath.Join(home, "work/shared/out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.ssh", filepath.Join(home, "work/up")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(home, "work")
	s = New(Options{Home: home, WorkDir: work, ProcessHome: home, ProcessDir: work})
	s.AllowFile(filepath.Join(home, "work/notes.txt"), Attached)
	if err := s.AllowFolder(filepath.Join(home, "work/shared"), Attached); err != nil {
		t.Fatal(err)
	}
	return home, s
}

// forms writes the path p (absolute) in every way a value may carry it to
// a tool; rel is p relative to the working directory, tilde p from ~.
func forms(p, rel, tilde string) map[string]string {
	enc := url.PathEscape(p)
	enc = strings.ReplaceAll(enc, "/", "%2F")
	js, _ := json.Marshal(map[string]any{"path": p})
	arr, _ := json.Marshal([]string{p})
	esc := strings.ReplaceAll(string(js), "/", `\u002f`)
	return map[string]string{
		"absolute":                  p,
		"relative":                  rel,
		"./relative":                "./" + rel,
		"..":                        "../work/" + rel,
		"~":                         tilde,
		"$HOME":                     "$HOME" + strings.TrimPrefix(tilde, "~"),
		"file:///":                  "file://" + p,
		"file://localhost/":         "file://localhost" + p,
		"FILE:/":                    "FILE:" + p,
		"file:// with a query":      "file://" + p + "?x=1",
		"percent-encoded":           enc,
		"percent-encoded twice":     strings.ReplaceAll(enc, "%", "%25"),
		"file URL, percent-encoded": "file://" + strings.ReplaceAll(url.PathEscape(p), "%2F", "/"),
		"%2e%2e":                    "%2e%2e/work/" + rel,
		"in a sentence":             "please read " + p + ", thanks",
		"after key=":                "--input=" + p,
		"in parentheses":            "(see " + p + ")",
		"with a line number":        p + ":12",
		"@path":                     "@" + p,
		"quoted in a sentence":      `open "` + p + `" now`,
		"JSON object":               string(js),
		"JSON array":                string(arr),
		"JSON, escaped slashes":     esc,
		`\/ escaped`:                strings.ReplaceAll(p, "/", `\/`),
		"before a NUL":              p + "\x00.png",
		"ending in a NUL":           p + "\x00",
		"after a control":           "x\x1b" + p,
		"after a no-break space":    "read\u00a0" + p,
		"behind a URL's comma":      "http://example.com/a," + p,
	}
}

// TestGateForms: a path the turn may not read is refused in every form a
// value can carry it; the same forms of a granted file pass. The refusal
// names the path and the fix, never the contents.
func TestGateForms(t *testing.T) {
	t.Parallel()
	home, s := gateTree(t)
	for _, target := range []struct {
		name, path, rel, tilde string
		granted                bool
	}{
		{"a file never given", filepath.Join(home, "work/secret.txt"), "secret.txt", "~/work/secret.txt", false},
		{"a key", filepath.Join(home, ".ssh/id_rsa"), "../.ssh/id_rsa", "~/.ssh/id_rsa", false},
		{"a key through a link", filepath.Join(home, "work/link.txt"), "link.txt", "~/work/link.txt", false},
		{"a name that is not ASCII", filepath.Join(home, "work/café.txt"), "café.txt", "~/work/café.txt", false},
		{"the attached file", filepath.Join(home, "work/notes.txt"), "notes.txt", "~/work/notes.txt", true},
		{"the attached file through a link", filepath.Join(home, "work/notes-link.txt"), "notes-link.txt", "~/work/notes-link.txt", true},
	} {
		for form, v := range forms(target.path, target.rel, target.tilde) {
			t.Run(target.name+"/"+form, func(t *testing.T) {
				err := s.Gate(v)
				if target.granted {
					if err != nil {
						t.Fatalf("Gate(%q) = %v, want it to pass", v, err)
					}
					return
				}
				var de *DeniedError
				if !errors.As(err, &de) || !errors.Is(err, ErrDenied) {
					t.Fatalf("Gate(%q) = %v, want a refusal", v, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, "--attach") || strings.Contains(msg, "contents of") {
					t.Errorf("the refusal should name the fix and never the contents: %q", msg)
				}
			})
		}
	}
}

// TestGateOtherCases: folders, names with blanks, and text that only
// looks like paths.
func TestGateOtherCases(t *testing.T) {
	t.Parallel()
	home, s := gateTree(t)
	for _, tc := range []struct {
		name, value string
		refused     bool
	}{
		{"a folder as the whole value", "~/.ssh", true},
		{"a folder as the whole value, relative", "folder", true},
		{"a folder written as a path in a sentence", "list " + filepath.Join(home, ".ssh") + "/ please", true},
		{"the working directory as the whole value", ".", true},
		{"a file inside a folder", "folder/inner.txt", true},
		{"a blank in the name, the whole value", "my secret.txt", true},
		{"a blank in the name, quoted", `read 'my secret.txt' aloud`, true},
		{"a blank in the name, escaped", `read my\ secret.txt aloud`, true},
		{"plain text", "a cat sitting on a mat", false},
		{"a folder's name as a word", "the folder is empty", false},
		{"slashes as punctuation", "and/or 80 km/h, a / b, ../ and ./", false},
		{"an http URL", "see https://example.com/../../" + filepath.Join(home, "work/secret.txt"), false},
		{"a missing file", filepath.Join(home, "work/nothing.txt"), false},
		{"the attached file in a sentence", "summarise " + filepath.Join(home, "work/notes.txt") + " please", false},
		{"the root as a word", "a / b", false},
		{"the root as the whole value", "/", true},
		{"a link's parent, as the kernel reads it", "up/../notes.txt", true},
		{"a link's parent in a sentence", "read up/../notes.txt please", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Gate(tc.value)
			if tc.refused != (err != nil) {
				t.Fatalf("Gate(%q) = %v, want refused=%v", tc.value, err, tc.refused)
			}
		})
	}
}

// TestGateConfined: in a scope confined to a folder (a user over ssh), a
// path outside it is refused by its name, whether it exists or not, with
// the folder named; paths inside follow the rule.
func TestGateConfined(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "alice")
	for _, f := range []string{"alice/notes.txt", "alice/mine.txt", "bob/secret.txt"} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../bob/secret.txt", filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Root: ws})
	s.AllowTyped("summarize notes.txt")
	bob := filepath.Join(base, "bob/secret.txt")
	for _, v := range []string{bob, filepath.Join(base, "bob/missing.txt"), "../bob/secret.txt", "~/../bob/secret.txt", "file://" + bob,
		"file:///etc/passwd", "read /etc/passwd now", "/etc", "%2Fetc%2Fpasswd", "~root/.bashrc", "$HOME/.bashrc", "link.txt", "see " + ws + "/link.txt",
		// "~" is the folder to Chorus, but a tool reads it as the server's
		// home: not the file the user means (TestGateTildeIsAlsoTheToolsHome).
		"~/notes.txt"} {
		var de *DeniedError
		if err := s.Gate(v); !errors.As(err, &de) || de.Root == "" || !strings.Contains(err.Error(), "outside your folder") {
			t.Errorf("Gate(%q) = %v, want a refusal naming the folder", v, err)
		}
	}
	for _, v := range []string{"notes.txt", "./notes.txt", filepath.Join(ws, "notes.txt"), "a cat on a mat", "and/or"} {
		if err := s.Gate(v); err != nil {
			t.Errorf("Gate(%q) = %v, want it to pass", v, err)
		}
	}
	if err := s.Gate("mine.txt"); err == nil || strings.Contains(err.Error(), "outside your folder") {
		t.Errorf("a file of the user's own folder they did not give: %v", err)
	}
}

// TestGateConfinedForms: over ssh (a scope confined to the user's folder,
// home/work, with home the server's HOME) a file of the server outside
// the folder is refused in every form a value can carry it — even when
// it was attached — and the refusal names the folder; every form of the
// user's own granted file passes but one: file://localhost/p, one reading
// of which is /localhost/p, a name outside the folder, refused whether or
// not a file is there.
func TestGateConfinedForms(t *testing.T) {
	t.Parallel()
	home, _ := gateTree(t)
	work := filepath.Join(home, "work")
	s := New(Options{Root: work, ProcessHome: home, ProcessDir: work})
	outside := filepath.Join(home, "notes.txt")
	s.AllowFile(outside, Attached) // outside the folder: grants nothing
	s.AllowFile(filepath.Join(work, "notes.txt"), Attached)
	// "~" is the folder to Chorus, home to a tool the server starts: both
	// put these outside.
	refused := forms(outside, "../notes.txt", "~/../notes.txt")
	refused["a link out of the folder"] = "link.txt"
	refused["~, the server's home"] = "~/notes.txt"
	refused["~, a key"] = "~/.ssh/id_rsa"
	refused["$HOME, a key"] = "$HOME/.ssh/id_rsa"
	refused["/etc/passwd"] = "/etc/passwd"
	for form, v := range refused {
		t.Run("outside/"+form, func(t *testing.T) {
			err := s.Gate(v)
			var de *DeniedError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), "outside your folder on this server ("+work+")") {
				t.Fatalf("Gate(%q) = %v, want a refusal naming the folder", v, err)
			}
		})
	}
	own := forms(filepath.Join(work, "notes.txt"), "notes.txt", "~/work/notes.txt")
	delete(own, "file://localhost/")
	own["a link to it"] = "notes-link.txt"
	for form, v := range own {
		t.Run("own/"+form, func(t *testing.T) {
			if err := s.Gate(v); err != nil {
				t.Fatalf("Gate(%q) = %v, want it to pass", v, err)
			}
		})
	}
}

// reads returns the files a careless tool might open given value: its
// own, independent reading of the value — the whole, cut at a NUL, words
// split at any blank, control or punctuation, each decoded (percent-
// encoding, file: URLs, JSON, "\/") again and again, "~" and "$HOME"
// expanded, relative to wd. http(s) URLs are fetched, not opened. A word
// in a sentence is a path only when path-shaped (a "/", a leading "~" or
// "."): a plain word is text, whatever a file is called (issue 33, 11);
// it is read as a folder only when written with a "/".
func reads(value, home, wd string) []string {
	type cand struct {
		s     string
		whole bool
	}
	var todo []cand
	push := func(s string, whole bool) {
		todo = append(todo, cand{s, whole})
	}
	push(value, true)
	seen := map[cand]bool{}
	var out []string
	for n := 0; len(todo) > 0 && n < 5000; n++ {
		c := todo[0]
		todo = todo[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		s := c.s
		if i := strings.IndexByte(s, 0); i >= 0 {
			push(s[:i], c.whole)
		}
		// Decodings.
		if d, err := url.PathUnescape(s); err == nil && d != s {
			push(d, c.whole)
		}
		if strings.Contains(s, `\/`) {
			push(strings.ReplaceAll(s, `\/`, "/"), c.whole)
		}
		var js any
		if json.Unmarshal([]byte(s), &js) == nil {
			var walk func(any)
			walk = func(x any) {
				switch x := x.(type) {
				case string:
					push(x, true)
				case []any:
					for _, e := range x {
						walk(e)
					}
				case map[string]any:
					for k, e := range x {
						push(k, true)
						walk(e)
					}
				}
			}
			walk(js)
		}
		t := strings.TrimSpace(s)
		if len(t) > 5 && strings.EqualFold(t[:5], "file:") {
			if u, err := url.Parse("file:" + t[5:]); err == nil && u.Path != "" {
				push(u.Path, c.whole)
			}
			push(strings.TrimPrefix(t[5:], "//"), c.whole)
		}
		// Words, unless s is one already.
		words := strings.FieldsFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`"'`+"`"+`,;:=()[]{}<>|&*?!#@`, r)
		})
		if len(words) > 1 || len(words) == 1 && words[0] != s {
			for i, w := range words {
				if strings.EqualFold(w, "http") || strings.EqualFold(w, "https") {
					if i+1 < len(words) && strings.HasPrefix(words[i+1], "//") {
						words[i+1] = "" // the rest of a URL
					}
					continue
				}
				push(strings.TrimRight(w, "."), false)
				push(w, false)
			}
		}
		// The path itself.
		p := strings.TrimSpace(s)
		if p == "" || strings.ContainsRune(p, 0) || (!c.whole && (strings.Trim(p, "/.~") == "" || !tokenShaped(p))) {
			continue
		}
		p = strings.NewReplacer("${HOME}", home, "$HOME", home).Replace(p)
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = home + p[1:]
		}
		if !filepath.IsAbs(p) {
			p = wd + "/" + p // as the kernel reads it: up/../x is beside up's target
		}
		st, err := os.Stat(p)
		if err != nil || !c.whole && !st.Mode().IsRegular() && !(st.IsDir() && strings.Contains(c.s, "/")) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// FuzzGate: whatever the value — paths in every encoding, links, NUL
// bytes, Unicode — a value the gate lets through makes no careless
// reader (reads) open a file outside the grant. Run it for a while with
// go test ./scope -run '^$' -fuzz FuzzGate -fuzztime 10m.
func FuzzGate(f *testing.F) {
	home, s := gateTree(f)
	fuzzGate(f, s, home, home)
}

// FuzzGateConfined is FuzzGate over ssh: the scope is confined to the
// user's folder (home/work, which is "~" to Chorus), and a tool started by
// the server reads "~" as the server's home (home, $HOME here) — a value
// the gate lets through makes no careless reader open a file outside the
// grant, either way it reads "~".
func FuzzGateConfined(f *testing.F) {
	home, _ := gateTree(f)
	wd := filepath.Join(home, "work")
	s := New(Options{Root: wd, ProcessHome: home, ProcessDir: wd})
	s.AllowFile(filepath.Join(wd, "notes.txt"), Attached)
	if err := s.AllowFolder(filepath.Join(wd, "shared"), Attached); err != nil {
		f.Fatal(err)
	}
	for _, v := range []string{"~/notes.txt", "~/../.ssh/id_rsa", "~/.ssh/id_rsa", "$HOME/.ssh/id_rsa", "~/work/notes.txt", "%7E/.ssh/id_rsa", "file://~/.ssh/id_rsa"} {
		f.Add(v)
	}
	fuzzGate(f, s, home, wd)
}

// fuzzGate fuzzes s.Gate on gateTree's home: a tool reads "~" as
// toolHome, Chorus as scopeHome.
func fuzzGate(f *testing.F, s *Scope, toolHome, scopeHome string) {
	home := toolHome
	wd := filepath.Join(home, "work")
	granted := filepath.Join(wd, "notes.txt")
	// What the grant holds, found apart from the scope: the file, and the
	// shared folder with what lies in it but hidden entries and links.
	var grant []os.FileInfo
	for _, p := range []string{granted} {
		st, err := os.Stat(p)
		if err != nil {
			f.Fatal(err)
		}
		grant = append(grant, st)
	}
	err := filepath.WalkDir(filepath.Join(wd, "shared"), func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case strings.HasPrefix(d.Name(), ".") && d.IsDir():
			return filepath.SkipDir
		case strings.HasPrefix(d.Name(), ".") || d.Type()&os.ModeSymlink != 0:
			return nil
		}
		st, err := os.Stat(p)
		grant = append(grant, st)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	inGrant := func(st os.FileInfo) bool {
		for _, g := range grant {
			if os.SameFile(st, g) {
				return true
			}
		}
		return false
	}
	for _, target := range [][3]string{
		{filepath.Join(home, "work/secret.txt"), "secret.txt", "~/work/secret.txt"},
		{filepath.Join(home, ".ssh/id_rsa"), "../.ssh/id_rsa", "~/.ssh/id_rsa"},
		{filepath.Join(home, "work/link.txt"), "link.txt", "~/work/link.txt"},
		{granted, "notes.txt", "~/work/notes.txt"},
	} {
		for _, v := range forms(target[0], target[1], target[2]) {
			f.Add(v)
		}
	}
	for _, v := range []string{"up/../notes.txt", "~/work/up/../notes.txt", "~/.ssh", "folder/", "shared/a.txt", "shared/.hidden", "shared/out.txt", "shared", "shared/../folder", "my secret.txt", "caf\u0065\u0301.txt", "%C3%A9", "file:~/.ssh/id_rsa", "file:secret.txt"} {
		f.Add(v)
	}
	// Relative, long and Unicode spellings (issue 33, 1, 2 and 5): a
	// server allowed the user's home reads them from there.
	key := filepath.Join(home, ".ssh/id_rsa")
	for _, v := range []string{".ssh/id_rsa", "../.ssh/id_rsa", `["../.ssh/id_rsa", "notes.txt"]`, "work/secret.txt", "./work/link.txt", "work/up/../notes.txt",
		"/" + strings.Repeat("./", 2100) + key[1:], strings.Repeat("/", 4100) + key[1:], strings.Repeat("./", 2100) + "../.ssh/id_rsa",
		"work/caf\u0065\u0301.txt", "caf\u0065\u0301.txt", "work/shared/a.txt", "shared/.hidden", "notes.txt", "new.txt", "shared/new.txt", "../.ssh/authorized_keys"} {
		f.Add(v)
	}
	homes := []string{toolHome}
	if scopeHome != toolHome {
		homes = append(homes, scopeHome)
	}
	// The MCP filesystem server as a user sets it up: allowed their home,
	// run from Chorus's folder, "~" its HOME.
	server := Reader{Tool: true, Path: true, Dirs: []Base{{Dir: home, Name: "the MCP server's allowed folder"}}, Homes: []Base{{Dir: toolHome, Name: "the MCP server's home"}}}
	list := server
	list.Structured = true
	f.Fuzz(func(t *testing.T, value string) {
		for _, r := range []Reader{server, list} {
			got, err := s.GateFor(value, r)
			if err != nil {
				continue
			}
			for _, p := range serverArgs(got) {
				real, ok := serverOpens(p, []string{home}, toolHome)
				if !ok {
					continue
				}
				if st, err := os.Stat(real); err == nil && !inGrant(st) {
					t.Fatalf("GateFor let %q through as %q, and server-filesystem allowed %s opens %s, outside the grant", value, got, home, real)
				}
			}
		}
		if s.Gate(value) != nil {
			return
		}
		for _, h := range homes {
			for _, p := range reads(value, h, wd) {
				st, err := os.Stat(p)
				if err != nil || inGrant(st) {
					continue
				}
				t.Fatalf("Gate let %q through, and a tool could read %s, outside the grant", value, p)
			}
		}
	})
}

// BenchmarkGate: a megabyte of prose (a long tool result passed on as
// <resource>-N), and values built to make a decoder work hard.
func BenchmarkGate(b *testing.B) {
	_, s := gateTree(b)
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog near notes and folder/inner bits, 42% of the time. ", 11000)
	for name, v := range map[string]string{
		"prose 1MB":          prose,
		"percent nested 64K": strings.Repeat("%25", 20000) + "2F",
		"words 64K":          strings.Repeat("a/b ", 16000),
		"json nested":        strings.Repeat(`["`, 1) + strings.Repeat(`%2F\/`, 5000) + `"]`,
		"distinct words 1MB": distinctWords(1 << 20),
		"prose 5MB":          strings.Repeat("lorem ipsum dolor sit amet ", 5<<20/27),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(v)))
			for b.Loop() {
				_ = s.Gate(v)
			}
		})
	}
}

// distinctWords is n bytes of words that are all different: the most a
// gate's sets could be asked to hold.
func distinctWords(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "w%x ", i*2654435761)
	}
	return b.String()
}

// TestGateTildeIsAlsoTheToolsHome: "~" is the scope's home (over ssh, the
// remote user's folder), but a tool expands it to its own: a shell, the
// MCP filesystem server (os.homedir) read "~/x" in the server's $HOME
// (Options.ProcessHome, the HOME the tools Chorus starts inherit). So
// a value "~/x" is judged both ways: a key in the server's home is refused
// over ssh — naming the folder — and in a scope whose home is not $HOME.
func TestGateTildeIsAlsoTheToolsHome(t *testing.T) {
	t.Parallel()
	server := t.TempDir()
	for _, f := range []string{".ssh/id_rsa", "host-secret.txt"} {
		p := filepath.Join(server, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("server key"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	folder := filepath.Join(t.TempDir(), "users", "u1")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "mine.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"~/.ssh/id_rsa", "~/host-secret.txt", "read ~/host-secret.txt please", `["~/.ssh/id_rsa"]`, "file:~/.ssh/id_rsa", "%7E/.ssh/id_rsa"} {
		confined := New(Options{Root: folder, ProcessHome: server})
		confined.AllowFile(filepath.Join(folder, "mine.txt"), Attached)
		err := confined.Gate(v)
		var de *DeniedError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "outside your folder on this server") {
			t.Errorf("over ssh, Gate(%q) = %v, want a refusal naming the folder", v, err)
		}
		if strings.HasPrefix(v, "~/") && !strings.Contains(err.Error(), "a tool reads ~ as the server's home — name the file from your folder, as "+v[2:]) {
			t.Errorf("over ssh, the refusal of %q does not say how to name the file: %v", v, err)
		}
		other := New(Options{Home: folder, WorkDir: folder, ProcessHome: server})
		if err := other.Gate(v); !errors.As(err, &de) {
			t.Errorf("with home %s and $HOME %s, Gate(%q) = %v, want a refusal", folder, server, v, err)
		}
	}
	// The user's own file, named in their folder, still goes over ssh; and
	// with $HOME the scope's home, "~" is read once, as before.
	confined := New(Options{Root: folder, ProcessHome: server})
	confined.AllowFile(filepath.Join(folder, "mine.txt"), Attached)
	if err := confined.Gate(filepath.Join(folder, "mine.txt")); err != nil {
		t.Errorf("over ssh the user's own file is refused: %v", err)
	}
	home := New(Options{Home: server, WorkDir: server, ProcessHome: server})
	home.AllowFile(filepath.Join(server, "host-secret.txt"), Attached)
	if err := home.Gate("~/host-secret.txt"); err != nil {
		t.Errorf("a granted ~/ path is refused: %v", err)
	}
}
