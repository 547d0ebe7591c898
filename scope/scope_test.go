package scope

import (
	"errors"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chorusai/chorus/internal/testkit"
)

// tree builds a home with an allowed folder, secrets beside it and links
// out of it:
//
//	home/.ssh/id_rsa          a secret
//	home/work/cat.png         attached
//	home/work/notes.txt       typed in the request
//	home/work/other.png       never mentioned
//	home/out/                 the output directory
//	home/out/escape -> ../.ssh/id_rsa
//	home/out/sub/result.png
//	home/work/link.png -> ../.ssh/id_rsa
func tree(t *testing.T) (home string, s *Scope) {
	t.Helper()
	home = t.TempDir()
	for _, f := range []string{".ssh/id_rsa", "work/cat.png", "work/notes.txt", "work/other.png", "out/sub/result.png"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("contents of "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../.ssh/id_rsa", filepath.Join(home, "out/escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.ssh/id_rsa", filepath.Join(home, "work/link.png")); err != nil {
		t.Fatal(err)
	}
	s = New(Options{Home: home, WorkDir: filepath.Join(home, "work")})
	s.AllowFile(filepath.Join(home, "work/cat.png"), Attached)
	s.AllowTyped("summarise notes.txt and describe the picture")
	s.AllowDir(filepath.Join(home, "out"), Output)
	return home, s
}

func TestPathRule(t *testing.T) {
	t.Parallel()
	home, s := tree(t)
	for _, tc := range []struct {
		name, path string
		allowed    bool
	}{
		{"attached, absolute", filepath.Join(home, "work/cat.png"), true},
		{"attached, relative to the working directory", "cat.png", true},
		{"attached, through ~", "~/work/cat.png", true},
		{"attached, through ..", "../work/./cat.png", true},
		{"typed by the user", "notes.txt", true},
		{"typed by the user, absolute", filepath.Join(home, "work/notes.txt"), true},
		{"in the output directory", filepath.Join(home, "out/sub/result.png"), true},
		{"never given", "other.png", false},
		{"a secret, absolute", filepath.Join(home, ".ssh/id_rsa"), false},
		{"a secret through ~", "~/.ssh/id_rsa", false},
		{"a secret through ..", "../.ssh/id_rsa", false},
		{"out of the output directory by ..", filepath.Join(home, "out/../.ssh/id_rsa"), false},
		{"a link out of the output directory", filepath.Join(home, "out/escape"), false},
		{"a link with an allowed-looking name", "link.png", false},
		{"a system file", "/etc/passwd", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := s.Check(tc.path)
			if tc.allowed {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want allowed", tc.path, err)
				}
				b, err := f.ReadAll(1 << 10)
				if err != nil || !strings.HasPrefix(string(b), "contents of ") {
					t.Fatalf("ReadAll = %q, %v", b, err)
				}
				return
			}
			var de *DeniedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDenied) {
				t.Fatalf("Check(%q) = %v, want a refusal", tc.path, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.path) || !strings.Contains(msg, "--attach") || strings.Contains(msg, "contents of") {
				t.Errorf("refusal should name the path and the fix, never the contents: %q", msg)
			}
		})
	}
}

// TestExpertOutputPathIsNotGranted: a path that reaches the scope only as
// text (a result, a plan argument) stays refused, whatever it looks like.
func TestExpertOutputPathIsNotGranted(t *testing.T) {
	t.Parallel()
	home, s := tree(t)
	result := "the file you want is " + filepath.Join(home, ".ssh/id_rsa")
	s.AllowURL("https://example.com/a.png", Result) // results grant URLs, never paths
	for _, p := range pathsIn(result) {
		if s.Allowed(p) {
			t.Fatalf("%q from an expert's output passed the rule", p)
		}
	}
}

func TestMissingFileIsNotFoundNotDenied(t *testing.T) {
	t.Parallel()
	_, s := tree(t)
	_, err := s.Check("nope.png")
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrDenied) {
		t.Fatalf("err = %v, want not-exist", err)
	}
}

func TestTypedPaths(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, f := range []string{"my photo.png", "a.wav", "dir/b.txt", "q.png"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x"), 0o600)
	}
	s := New(Options{Home: home, WorkDir: home})
	s.AllowTyped(`look at "my photo.png", then a.wav. Also ~/dir/b.txt, and (q.png) and @nothere.png; not dir`)
	for _, f := range []string{"my photo.png", "a.wav", "dir/b.txt", "q.png"} {
		if !s.Allowed(filepath.Join(home, f)) {
			t.Errorf("%s was typed but is not allowed (allowed: %v)", f, s.Files())
		}
	}
	if s.Allowed(home + "/dir") {
		t.Error("a directory was granted")
	}
}

func TestReadAllLimit(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	p := filepath.Join(home, "big.txt")
	os.WriteFile(p, make([]byte, 2048), 0o600)
	s := New(Options{Home: home, WorkDir: home})
	s.AllowFile(p, Attached)
	f, err := s.Check(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAll(1024); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want too large", err)
	}
}

func TestOpenRefusesNonRegular(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := New(Options{Home: home, WorkDir: home})
	s.AllowDir(home, Output)
	os.Mkdir(filepath.Join(home, "d"), 0o755)
	f, err := s.Check(filepath.Join(home, "d"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Open(); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
}

// TestOpenDoesNotBlockOnAFIFO: a FIFO in an allowed folder is refused at
// once; opening it the usual way would wait for a writer forever.
func TestOpenDoesNotBlockOnAFIFO(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	fifo := filepath.Join(home, "pipe.png")
	if err := testkit.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	s := New(Options{Home: home, WorkDir: home})
	s.AllowDir(home, Output)
	f, err := s.Check(fifo)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		fh, err := f.Open()
		if err == nil {
			fh.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("err = %v, want a refusal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open blocked on a FIFO")
	}
}

func FuzzPathRule(f *testing.F) {
	home := f.TempDir()
	os.MkdirAll(filepath.Join(home, "ok"), 0o755)
	os.WriteFile(filepath.Join(home, "ok/a.png"), []byte("a"), 0o600)
	os.WriteFile(filepath.Join(home, "secret"), []byte("s"), 0o600)
	os.Symlink("../secret", filepath.Join(home, "ok/l"))
	for _, s := range []string{"a.png", "../secret", "l", "~/secret", "/etc/passwd", "./a.png/..", "", "~", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		s := New(Options{Home: home, WorkDir: filepath.Join(home, "ok")})
		s.AllowFile(filepath.Join(home, "ok/a.png"), Attached)
		file, err := s.Check(p)
		if err != nil {
			return
		}
		if file.Path() != filepath.Join(home, "ok/a.png") {
			t.Fatalf("%q passed as %q", p, file.Path())
		}
	})
}

func TestAllowDirNotYetCreated(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := New(Options{Home: home, WorkDir: home})
	out := filepath.Join(home, "data", "outputs")
	s.AllowDir(out, Output)
	os.MkdirAll(out, 0o755)
	p := filepath.Join(out, "made.png")
	os.WriteFile(p, []byte("x"), 0o600)
	if !s.Allowed(p) {
		t.Fatal("a file Chorus wrote into an output directory created after the grant is refused")
	}
	os.WriteFile(filepath.Join(home, "data", "other.png"), []byte("x"), 0o600)
	if s.Allowed(filepath.Join(home, "data", "other.png")) {
		t.Fatal("the grant covers the output directory's parent")
	}
}

// TestNamed: the files a text names are found as AllowTyped finds them —
// bare, quoted, with escaped blanks, relative to the working directory —
// resolved, each once, skipping directories and missing paths.
func TestNamed(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, n := range []string{"a.png", "my photo.jpg"} {
		if err := os.WriteFile(filepath.Join(home, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := New(Options{Home: home, WorkDir: home})
	got := s.Named(`compare a.png with "my photo.jpg", then ` + home + `/a.png and ` + home + ` and /no/such.png`)
	want := []string{filepath.Join(home, "a.png"), filepath.Join(home, "my photo.jpg")}
	real0, _ := filepath.EvalSymlinks(want[0])
	real1, _ := filepath.EvalSymlinks(want[1])
	if len(got) != 2 || got[0] != real0 || got[1] != real1 {
		t.Errorf("Named = %q, want %q", got, []string{real0, real1})
	}
	if len(s.Files()) != 0 {
		t.Errorf("Named granted %v", s.Files())
	}
}

// TestAbs: a path as the scope reads it — "~" from its home, a relative
// path from its working folder, cleaned, links not followed — whatever
// the process's folder and HOME; a confined scope refuses a path outside
// its folder by the name alone.
func TestAbs(t *testing.T) {
	t.Parallel()
	home, work := t.TempDir(), t.TempDir()
	s := New(Options{Home: home, WorkDir: work})
	for in, want := range map[string]string{"~/notes.txt": home + "/notes.txt", "notes.txt": work + "/notes.txt", "./a/../b.txt": work + "/b.txt",
		" /etc/hosts ": "/etc/hosts", "~": home} {
		if got, err := s.Abs(in); err != nil || got != want {
			t.Errorf("Abs(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	confined := New(Options{Root: work})
	if got, err := confined.Abs("~/x.txt"); err != nil || got != filepath.Join(confined.root, "x.txt") {
		t.Errorf("confined: Abs(~/x.txt) = %q, %v; want it in the folder", got, err)
	}
	var de *DeniedError
	if _, err := confined.Abs("../outside.txt"); !errors.As(err, &de) {
		t.Errorf("confined: Abs(../outside.txt) = %v, want a refusal", err)
	}
	if _, err := s.Abs(""); err == nil {
		t.Error("Abs of nothing gave a path")
	}
}

// TestProcessHome: the HOME a tool Chorus starts inherits — or, with none
// set, the account's home — is the home the gate judges "~" in when no
// Options.ProcessHome is given.
func TestProcessHome(t *testing.T) {
	t.Parallel()
	if got := processHome(func(string) string { return "/home/tool" }); got != "/home/tool" {
		t.Errorf("with HOME set: %q", got)
	}
	u, err := user.Current()
	if err != nil {
		t.Skip("no account to read a home from:", err)
	}
	if got := processHome(func(string) string { return "" }); got != u.HomeDir {
		t.Errorf("without HOME: %q, want the account's %q", got, u.HomeDir)
	}
}
