package scope

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// basesTree lays out every folder a tool may resolve a relative path
// from, each holding a file the turn was not given:
//
//	chorus/secret-c.txt        Chorus's working folder (ProcessDir)
//	chat/mine.txt              the chat's folder: the one granted file
//	chat/secret-w.txt          never given
//	home/.ssh/id_rsa           HOME (ProcessHome), the tool's home too
//	home/notes/secret.txt
//	srv/secret-s.txt           the server's folder (where it runs)
//	allowed/secret-a.txt       the server's allowed folder (its argument)
//	allowed/café.txt           composed (NFC) on disk
//
// and files named like the words of a sentence: chorus/from,
// chorus/chorus, chat/from.
type basesTree struct {
	root, chorus, chat, home, srv, allowed string
}

func newBasesTree(t testing.TB) basesTree {
	t.Helper()
	root := t.TempDir()
	b := basesTree{root: root, chorus: filepath.Join(root, "chorus"), chat: filepath.Join(root, "chat"), home: filepath.Join(root, "home"),
		srv: filepath.Join(root, "srv"), allowed: filepath.Join(root, "allowed")}
	for _, f := range []string{"chorus/secret-c.txt", "chorus/from", "chorus/chorus", "chat/mine.txt", "chat/secret-w.txt", "chat/from",
		"home/.ssh/id_rsa", "home/notes/secret.txt", "srv/secret-s.txt", "allowed/secret-a.txt", "allowed/caf\u00e9.txt"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("contents of "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// scope is the chat's scope: confined to the chat's folder (a user over
// ssh) or not (the working folder is the chat's), mine.txt granted.
func (b basesTree) scope(t testing.TB, confined bool) *Scope {
	t.Helper()
	o := Options{Home: b.home, WorkDir: b.chat, ProcessDir: b.chorus, ProcessHome: b.home, Outputs: filepath.Join(b.chat, "outputs")}
	if confined {
		o = Options{Root: b.chat, ProcessDir: b.chorus, ProcessHome: b.home, Outputs: filepath.Join(b.chat, "outputs")}
	}
	s := New(o)
	s.AllowFile(filepath.Join(b.chat, "mine.txt"), Attached)
	return s
}

// server is how a stdio server Chorus starts reads a path: from the
// folder it runs in, from the folder its command line allows, and "~"
// as its home.
func (b basesTree) server() Reader {
	return Reader{Tool: true, Path: true,
		Dirs:  []Base{{Dir: b.srv, Name: "the MCP server's folder"}, {Dir: b.allowed, Name: "the MCP server's allowed folder"}},
		Homes: []Base{{Dir: b.home, Name: "the MCP server's home"}}}
}

// relForms writes rel (a path relative to some base) in every way a
// value may carry it to a tool.
func relForms(rel string) map[string]string {
	arr, _ := json.Marshal([]string{rel})
	return map[string]string{
		"relative":      rel,
		"./":            "./" + rel,
		"x/../":         "x/../" + rel,
		"JSON list":     string(arr),
		"long":          strings.Repeat("./", 2100) + rel,
		"decomposed":    norm.NFD.String(rel),
		"in a sentence": "please read ./" + rel + " now",
	}
}

// TestGateJudgesEveryBase (issue 33, 1 and 5): a relative path is judged
// from every folder a tool may resolve it from — Chorus's working folder,
// the chat's folder, HOME, the server's folder and the folder its command
// line allows — in every form, and refused when any of them puts it
// outside the grant, the refusal naming that folder; the granted file
// passes, and a tool whose folders Chorus knows gets it as the absolute
// path that was judged.
func TestGateJudgesEveryBase(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	for _, confined := range []bool{false, true} {
		s := b.scope(t, confined)
		for _, target := range []struct{ base, rel, names string }{
			{b.chorus, "secret-c.txt", "Chorus's working folder"},
			{b.chat, "secret-w.txt", ""},
			{b.home, ".ssh/id_rsa", "the home folder"},
			{b.home, "notes/secret.txt", "the home folder"},
			{b.srv, "secret-s.txt", "the MCP server's folder"},
			{b.allowed, "secret-a.txt", "the MCP server's allowed folder"},
			{b.allowed, "caf\u00e9.txt", "the MCP server's allowed folder"},
		} {
			for form, v := range relForms(target.rel) {
				r := b.server()
				r.Structured = form == "JSON list"
				r.Path = form != "in a sentence" // a sentence goes to a text argument
				got, err := s.GateFor(v, r)
				var de *DeniedError
				if !errors.As(err, &de) {
					t.Errorf("confined=%v: %s in %s, %s: GateFor(%.80q) = %.80q, %v; want a refusal", confined, target.rel, target.base, form, v, got, err)
					continue
				}
				if target.names != "" && !strings.Contains(err.Error(), target.names) {
					t.Errorf("confined=%v: the refusal of %s (%s) does not name %s: %v", confined, target.rel, form, target.names, err)
				}
				if strings.Contains(err.Error(), "contents of") {
					t.Errorf("a refusal quotes the file: %v", err)
				}
			}
		}
		mine := filepath.Join(b.chat, "mine.txt")
		for form, v := range relForms("mine.txt") {
			if form == "long" || form == "decomposed" {
				continue // no other spelling names it
			}
			r := b.server()
			r.Structured = form == "JSON list"
			r.Path = form != "in a sentence"
			got, err := s.GateFor(v, r)
			if err != nil {
				t.Errorf("confined=%v: the granted file, %s: %v", confined, form, err)
				continue
			}
			want := mine
			switch form {
			case "JSON list":
				js, _ := json.Marshal([]string{mine})
				want = string(js)
			case "in a sentence":
				want = v // a path inside a sentence is judged, not rewritten
			}
			if got != want {
				t.Errorf("confined=%v: the granted file, %s: the tool gets %q, want %q", confined, form, got, want)
			}
		}
	}
}

// TestGateUnknownBase: for a server whose folder Chorus cannot know (an
// HTTP MCP server), a relative path is refused with the fix; the full
// path of the granted file passes.
func TestGateUnknownBase(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	s := b.scope(t, false)
	http := Reader{Tool: true, Path: true, Unknown: true}
	for _, v := range []string{"mine.txt", "./mine.txt", "~/notes/secret.txt", "new.txt"} {
		if _, err := s.GateFor(v, http); err == nil || !strings.Contains(err.Error(), "write the full path") {
			t.Errorf("GateFor(%q) to a server of unknown folder = %v, want a refusal naming the fix", v, err)
		}
	}
	mine := filepath.Join(b.chat, "mine.txt")
	if got, err := s.GateFor(mine, http); err != nil || got != mine {
		t.Errorf("the full path of the granted file: %q, %v", got, err)
	}
}

// TestGateLongPaths (issue 33, 2): a value over PATH_MAX that a tool
// cleans into a path is judged — refused when that path is outside the
// grant — never skipped; long text still flows.
func TestGateLongPaths(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	s := b.scope(t, false)
	secret := filepath.Join(b.home, "notes/secret.txt")
	key := filepath.Join(b.home, ".ssh/id_rsa")
	for _, v := range []string{
		"/" + strings.Repeat("./", 2100) + secret[1:],
		strings.Repeat("/", 4100) + key[1:],
		strings.Repeat("./", 2100) + "../home/notes/secret.txt",
		`["` + strings.Repeat("/", 4100) + key[1:] + `"]`,
		"read " + strings.Repeat("/", 4100) + key[1:] + " now",
		strings.Repeat("/", 5000) + "nothing/there/at/all/" + strings.Repeat("x", 4100),
	} {
		for _, r := range []Reader{{}, b.server()} {
			if _, err := s.GateFor(v, r); !errors.Is(err, ErrDenied) {
				t.Errorf("tool=%v: a long path (%d bytes) passed: %v", r.Tool, len(v), err)
			}
		}
	}
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog near notes and/or folders. ", 1000)
	for _, r := range []Reader{{}, b.server()} {
		if got, err := s.GateFor(prose, r); err != nil || got != prose {
			t.Errorf("tool=%v: long text was refused or changed: %v", r.Tool, err)
		}
	}
}

// TestGateUnicodeSpelling (issue 33, 5): names compare NFC — the
// decomposed spelling of a file the turn was not given is refused as the
// composed one is; the user's file typed in either spelling is granted.
func TestGateUnicodeSpelling(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	s := b.scope(t, false)
	cafe := filepath.Join(b.allowed, "caf\u00e9.txt")
	for _, v := range []string{cafe, norm.NFD.String(cafe), "read " + norm.NFD.String(cafe) + " now"} {
		if err := s.Gate(v); !errors.Is(err, ErrDenied) {
			t.Errorf("Gate(%+q) = %v, want a refusal", v, err)
		}
	}
	s.AllowTyped("summarize " + norm.NFD.String(cafe))
	for _, v := range []string{cafe, norm.NFD.String(cafe)} {
		if _, err := s.Check(v); err != nil {
			t.Errorf("typed decomposed, Check(%+q) = %v", v, err)
		}
	}
}

// TestGatePlainWordsAreText (issue 33, 11): a plain word inside a
// sentence is never a path, whatever file of that name some folder
// holds; a whole value that names nothing anywhere is text; a whole value
// naming a file is judged.
func TestGatePlainWordsAreText(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	text := b.server()
	text.Path = false // everything's echo: {message: …}
	for _, confined := range []bool{false, true} {
		s := b.scope(t, confined)
		for _, r := range []Reader{{}, text} {
			for _, v := range []string{"hello from chorus", "hello", "from chorus, with love", `{"message": "hello from chorus"}`, "a cat and/or a dog"} {
				if got, err := s.GateFor(v, r); err != nil || got != v {
					t.Errorf("confined=%v tool=%v: GateFor(%q) = %q, %v; want it to pass unchanged", confined, r.Tool, v, got, err)
				}
			}
			for _, v := range []string{"from", "chorus", "./from"} {
				if _, err := s.GateFor(v, r); !errors.Is(err, ErrDenied) {
					t.Errorf("confined=%v tool=%v: the whole value %q names a file and passed: %v", confined, r.Tool, v, err)
				}
			}
		}
	}
}

// TestGateNewFiles: a path that names nothing yet — a file a tool would
// create — must lie in a folder the user gave or the outputs folder, and
// the tool gets it as the absolute path judged.
func TestGateNewFiles(t *testing.T) {
	t.Parallel()
	b := newBasesTree(t)
	s := b.scope(t, false)
	if err := os.MkdirAll(filepath.Join(b.chat, "outputs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(b.chat, "given"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.AllowFolder(filepath.Join(b.chat, "given"), Typed); err != nil {
		t.Fatal(err)
	}
	r := b.server()
	for v, want := range map[string]string{
		filepath.Join(b.chat, "outputs", "new.txt"): filepath.Join(b.chat, "outputs", "new.txt"),
		"given/new.txt":                    filepath.Join(b.chat, "given", "new.txt"),
		"outputs/sub/../new.txt":           filepath.Join(b.chat, "outputs", "new.txt"),
		filepath.Join(b.chat, "given/new"): filepath.Join(b.chat, "given", "new"),
	} {
		if got, err := s.GateFor(v, r); err != nil || got != want {
			t.Errorf("GateFor(%q) = %q, %v; want %q", v, got, err, want)
		}
	}
	for _, v := range []string{filepath.Join(b.home, ".ssh/authorized_keys"), "~/.ssh/authorized_keys", "../home/.bashrc", "new.txt", "given/.hidden",
		filepath.Join(b.root, "elsewhere.txt")} {
		if _, err := s.GateFor(v, r); !errors.Is(err, ErrDenied) {
			t.Errorf("a new file outside the folders given, %q, passed: %v", v, err)
		}
	}
	// Not a path argument, and no folder it could be made in: text.
	text := r
	text.Path = false
	for _, v := range []string{"new.txt", "1/2", "/api/v1/users"} {
		if got, err := s.GateFor(v, text); err != nil || got != v {
			t.Errorf("GateFor(%q) to a text argument = %q, %v; want it unchanged", v, got, err)
		}
	}
}
