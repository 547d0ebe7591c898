package prompt

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// completion is the list of candidates for the word being typed.
type completion struct {
	// word is the text being completed (e.g. "/mo", "@~/pic").
	word string
	// items are full replacements for word; labels are what the hint line
	// shows for each (a file's base name, a command with its arguments).
	items  []string
	labels []string
}

// commonPrefix returns the longest prefix every item shares.
func (c completion) commonPrefix() string {
	if len(c.items) == 0 {
		return ""
	}
	p := c.items[0]
	for _, it := range c.items[1:] {
		for !strings.HasPrefix(it, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// Command is a slash command as completion shows it: its name and a
// summary of its arguments ("/load", "ID").
type Command struct {
	Name, Args string
}

// Completer knows the names the prompt can complete: commands, their
// arguments, and files.
type Completer struct {
	Commands []Command
	// Args returns the candidates for a command's first argument.
	Args func(cmd string) []string
	// ReadDir lists a directory; nil means os.ReadDir.
	ReadDir func(string) ([]os.DirEntry, error)
	// Expand turns a path as typed or pasted into the absolute path it
	// names; nil means ExpandPath (the process's working directory and
	// home). A chat confined to a workspace resolves from that instead.
	Expand func(string) string
	// Confine, when set, judges an absolute path by its name before it is
	// looked at on disk: an error keeps a pasted path text and refuses an
	// @path (a user over ssh, whose paths outside their folder must not
	// reveal whether the server has such a file). nil allows every path.
	Confine func(string) error
}

// expand is c.Expand or ExpandPath.
func (c Completer) expand(p string) string {
	if c.Expand != nil {
		return c.Expand(p)
	}
	return ExpandPath(p)
}

// complete returns the completion for the text before the cursor.
func (c Completer) complete(before string) completion {
	// A command name: "/" at the very start, no blank yet.
	if strings.HasPrefix(before, "/") && !strings.ContainsAny(before, " \n") {
		var comp completion
		comp.word = before
		for _, cmd := range c.Commands {
			if strings.HasPrefix(cmd.Name, before) {
				comp.items = append(comp.items, cmd.Name)
				comp.labels = append(comp.labels, strings.TrimSpace(cmd.Name+" "+cmd.Args))
			}
		}
		return comp
	}
	// A command's argument: "/load ab", or "/load my trip" (a session
	// title has blanks); case does not matter.
	if strings.HasPrefix(before, "/") && !strings.Contains(before, "\n") {
		name, arg, _ := strings.Cut(before, " ")
		if c.Args != nil {
			comp := completion{word: arg}
			for _, a := range c.Args(name) {
				if strings.HasPrefix(strings.ToLower(a), strings.ToLower(arg)) && a != arg {
					comp.items = append(comp.items, a)
					comp.labels = append(comp.labels, a)
				}
			}
			if len(comp.items) > 0 || !strings.Contains(arg, " ") {
				return comp
			}
		}
	}
	// An @file anywhere.
	if word, ok := fileWord(before); ok {
		return c.files(word)
	}
	return completion{}
}

// fileWord returns the @word before the cursor, if the text ends in one
// (and is not a command line, whose arguments complete from memory). A
// blank escaped with a backslash belongs to the word, as completion writes
// names with spaces ("@my\ photo.png").
func fileWord(before string) (string, bool) {
	start := 0
	for i := len(before) - 1; i >= 0; i-- {
		if isBlank(before[i]) && (before[i] != ' ' || i == 0 || before[i-1] != '\\') {
			start = i + 1
			break
		}
	}
	word := before[start:]
	return word, strings.HasPrefix(word, "@")
}

// escapeBlanks writes a path the way the @file parser reads it back: a
// space is escaped with a backslash, so it does not end the reference.
func escapeBlanks(p string) string { return strings.ReplaceAll(p, " ", `\ `) }

// unescapeBlanks undoes escapeBlanks.
func unescapeBlanks(p string) string { return strings.ReplaceAll(p, `\ `, " ") }

// isFileWord reports whether completing before needs the file system.
func (c Completer) isFileWord(before string) bool {
	if strings.HasPrefix(before, "/") && !strings.Contains(before, "\n") {
		return false
	}
	_, ok := fileWord(before)
	return ok
}

// filesCmd lists the matching files in a command: reading a directory is
// I/O, which never happens in Update.
func (c Completer) filesCmd(before string, tab bool) tea.Cmd {
	word, _ := fileWord(before)
	return func() tea.Msg { return FileCompletion{before: before, comp: c.files(word), tab: tab} }
}

// files completes "@dir/pre" to the entries of dir starting with pre;
// directories end in "/" so Tab can walk down.
func (c Completer) files(word string) completion {
	comp := completion{word: word}
	p := unescapeBlanks(strings.TrimPrefix(word, "@"))
	dir, pre := filepath.Split(p)
	lookIn := dir
	if lookIn == "" {
		lookIn = "."
	}
	lookIn = c.expand(lookIn)
	read := c.ReadDir
	if read == nil {
		read = os.ReadDir
	}
	entries, err := read(lookIn)
	if err != nil {
		return comp
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if !strings.HasPrefix(n, pre) || (strings.HasPrefix(n, ".") && !strings.HasPrefix(pre, ".")) {
			continue
		}
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if len(comp.items) == 200 {
			break
		}
		comp.items = append(comp.items, "@"+escapeBlanks(dir+n))
		comp.labels = append(comp.labels, n)
	}
	return comp
}
