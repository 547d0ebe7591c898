package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chorusai/chorus/ui/prompt"
)

// workspace is where the chat's files live (Options.Workspace). The zero
// value is this machine's file system as its user sees it: paths from the
// working directory and home, nothing confined. A remote user's chat has
// a root: paths resolve from it and nothing outside it may be read or
// written, so one ssh user cannot read the server's files or another
// user's. It is a value: commands take a copy off the UI goroutine.
type workspace struct {
	root string
}

func newWorkspace(root string) workspace {
	if root == "" {
		return workspace{}
	}
	root = filepath.Clean(root)
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	return workspace{root: root}
}

// expand makes a typed path absolute: from the root ("~" is the root) in
// a confined workspace, else as the prompt reads paths.
func (w workspace) expand(p string) string {
	if w.root == "" {
		return prompt.ExpandPath(p)
	}
	switch {
	case p == "~":
		return w.root
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(w.root, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(w.root, p)
}

// check returns nil when path (absolute) may be used: always in an
// unconfined workspace, else when it lies under the root once links are
// followed (a path that does not exist yet is judged by its directory).
func (w workspace) check(path string) error {
	if w.root == "" {
		return nil
	}
	if err := w.confine(path); err != nil {
		return err // outside by its name: not looked at
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			dir = filepath.Dir(path)
		}
		real = filepath.Join(dir, filepath.Base(path))
	}
	if real == w.root || strings.HasPrefix(real, w.root+string(filepath.Separator)) {
		return nil
	}
	return w.outside(path)
}

// confine refuses, by its name alone, an absolute path outside the
// workspace — before anything looks at the file system, so a refusal does
// not depend on whether such a file exists on the server. nil says only
// that the name lies inside (check follows its links).
func (w workspace) confine(abs string) error {
	if w.root == "" {
		return nil
	}
	p := filepath.Clean(abs)
	if p == w.root || strings.HasPrefix(p, w.root+string(filepath.Separator)) {
		return nil
	}
	return w.outside(abs)
}

// outside is the refusal of a path outside the workspace: it names the
// folder, since attaching the file (@path) would be refused too.
func (w workspace) outside(path string) error {
	return fmt.Errorf("%s is outside your workspace %s — over ssh, Chorus reads and writes only files in that folder", path, w.root)
}

// readDir lists a directory for Tab completion; in a confined workspace,
// only directories under the root.
func (w workspace) readDir(dir string) ([]os.DirEntry, error) {
	if err := w.check(dir); err != nil {
		return nil, err
	}
	return os.ReadDir(dir)
}

// checkAll checks every path.
func (w workspace) checkAll(paths []string) error {
	for _, p := range paths {
		if err := w.check(p); err != nil {
			return err
		}
	}
	return nil
}
