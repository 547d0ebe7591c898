package command

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/chorusai/chorus/endpoints"
	"github.com/chorusai/chorus/imaging"
	"github.com/chorusai/chorus/skills"
)

// prepare gives every placeholder of the call its value, checking each
// before anything starts: a file must be one the turn handed over as
// checked (the trust rule) and exist — the program gets the absolute path
// judged; a text must fit its bound and hold no NUL; a language must be a
// language code, and a pair the program has installed.
func (e *Endpoint) prepare(c *call) error {
	c.values, c.texts = map[string]string{}, map[string]string{}
	var src, tgt string
	for n, kind := range c.spec.kinds {
		what := c.spec.what[n]
		switch kind {
		case kindFile:
			path, err := inputFile(c.req, n, what, c.spec.media[n] == skills.Image && c.prog.Inputs[n] == "")
			if err != nil {
				return err
			}
			c.values[n] = path
		case kindText, kindTextFile:
			v, err := c.req.Arg(strings.TrimSuffix(n, "_file"), what)
			if err != nil {
				return err
			}
			if len(v) > e.opts.MaxTextBytes {
				return fmt.Errorf("%w: the %s is %d bytes; %s reads at most %d — summarise it first", endpoints.ErrBadInput, n, len(v), c.prog.Name, e.opts.MaxTextBytes)
			}
			if strings.ContainsRune(v, 0) {
				return fmt.Errorf("%w: the %s holds a NUL character, which no program argument can", endpoints.ErrBadInput, n)
			}
			if kind == kindTextFile {
				c.texts[n] = v // written to a file once the scratch directory exists
				continue
			}
			c.values[n] = v
		case kindLang:
			raw := strings.TrimSpace(c.req.Args[n])
			if raw == "" {
				if len(c.prog.Pairs) > 0 && n == "src_lang" {
					continue // the pair's source, below
				}
				if _, err := c.req.Arg(n, what); err != nil {
					return err
				}
			}
			code, ok := normalizeLang(raw)
			if !ok {
				return fmt.Errorf("%w: %s %q is not a language code (write one such as en, es, fr)", endpoints.ErrBadInput, n, raw)
			}
			c.values[n] = code
			switch n {
			case "src_lang":
				src = code
			case "tgt_lang":
				tgt = code
			}
		}
	}
	if len(c.prog.Pairs) == 0 {
		return nil
	}
	pairs, err := e.listPairs(c.prog, c.path)
	if err != nil {
		return err
	}
	p, err := choosePair(c.prog.Name, pairs, src, tgt)
	if err != nil {
		return err
	}
	// The program is given the codes its listing uses.
	c.values["src_lang"], c.values["tgt_lang"] = p.src, p.tgt
	return nil
}

// inputFile returns the absolute path of the checked file of media
// argument name: the path passed the turn's trust rule with every link
// resolved, so the program reads exactly the file the user gave (and a
// name like "-x" can never be an option). An image is first opened
// through the check to see it is one, before a program prints a cryptic
// error about it.
func inputFile(req endpoints.Request, name, what string, image bool) (string, error) {
	f, err := req.File(name, what)
	if err != nil {
		return "", err
	}
	shown := req.Args[name]
	if shown == "" {
		shown = f.Asked()
	}
	fi, err := os.Stat(f.Path())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %s file %s does not exist — check the path", endpoints.ErrBadInput, name, shown)
	case err != nil:
		return "", fmt.Errorf("%w: cannot read %s %s: %w", endpoints.ErrBadInput, name, shown, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%w: %s is not a regular file", endpoints.ErrBadInput, shown)
	}
	if image {
		fh, err := f.Open()
		if err != nil {
			return "", fmt.Errorf("%w: cannot read %s %s: %w", endpoints.ErrBadInput, name, shown, err)
		}
		defer fh.Close()
		if err := checkImageHeader(fh, shown); err != nil {
			return "", err
		}
	}
	return f.Path(), nil
}

// checkImageHeader refuses files that are not images.
func checkImageHeader(f io.Reader, path string) error {
	if _, _, err := image.DecodeConfig(io.LimitReader(f, 1<<20)); err != nil {
		return fmt.Errorf("%w: %s is not a readable %s image", endpoints.ErrBadInput, path, imaging.DecodableFormats)
	}
	return nil
}

// pairsListing is what a program's pairs argv answered: the pairs, or
// why it could not say, and when (a failure is asked again after a
// while; Check must stay cheap).
type pairsListing struct {
	pairs []pair
	err   error
	at    time.Time
}

// pairsRetry is how long a failed listing stands before it is asked again.
const pairsRetry = time.Minute

// listPairs asks the program which language pairs it has installed (its
// declaration's pairs argv): once per program path, or again a while
// after it failed.
func (e *Endpoint) listPairs(p *program, path string) ([]pair, error) {
	e.mu.Lock()
	l, ok := e.pairs[path]
	e.mu.Unlock()
	if ok && (l.err == nil || time.Since(l.at) < pairsRetry) {
		return l.pairs, l.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := e.probe(ctx, p, path, p.Pairs)
	l = pairsListing{pairs: parsePairs(out), at: time.Now()}
	if err != nil {
		l.pairs, l.err = nil, fmt.Errorf("%w: cannot list %s's language pairs: %w", endpoints.ErrUnavailable, p.Name, err)
	}
	e.mu.Lock()
	e.pairs[path] = l
	e.mu.Unlock()
	return l.pairs, l.err
}

// probe runs the program with args to ask it something (its pairs, its
// version) under the limits of a run, in a scratch directory of its own.
func (e *Endpoint) probe(ctx context.Context, p *program, path string, args []string) (string, error) {
	dir, err := os.MkdirTemp(e.opts.TempDir, "chorus-"+p.Name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	c := &call{prog: p, dir: dir}
	out, err := e.exec(ctx, c, run{path: path, args: args, label: p.Name + " " + strings.Join(args, " ")})
	var failed *exitError
	if errors.As(err, &failed) {
		// Some programs exit 1 after printing what was asked; the text
		// is the answer then.
		return string(failed.stdout) + failed.tail, nil
	}
	return string(out), err
}
