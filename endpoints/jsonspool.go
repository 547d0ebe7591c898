package endpoints

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A JSON answer can be hundreds of megabytes, nearly all of it one string:
// an image as base64 ({"data":[{"b64_json": …}]}), a long transcript.
// Reading it whole and then decoding it holds it two or three times over.
// ReadJSON streams it instead: the structure stays in memory, and every
// string longer than a threshold goes to a temporary file as it arrives,
// replaced in the text by a short marker that SpooledJSON resolves — to a
// reader for a file to be decoded as it is read, or to the string itself
// when a caller needs the words. Memory is then bounded by the structure,
// not by the strings, whatever the answer's size.

// DefaultJSONString is the longest string ReadJSON keeps in the text.
const DefaultJSONString = 64 << 10

// spooledMark starts the marker that stands for a spooled string: a NUL
// no server sends in a string Chorus reads, then the string's index.
const spooledMark = "\x00chorus-spooled:"

// SpooledJSON is a JSON answer read by ReadJSON.
type SpooledJSON struct {
	// Data is the answer, every string longer than the threshold replaced
	// by a marker string.
	Data []byte
	// strings are the spooled strings' files, raw (still JSON-escaped),
	// by index.
	strings []string
}

// Remove deletes the temporary files of the spooled strings.
func (j SpooledJSON) Remove() {
	for _, p := range j.strings {
		_ = os.Remove(p)
	}
}

// Spooled reports whether s, a string decoded from Data, stands for a
// spooled string.
func (j SpooledJSON) Spooled(s string) bool { return strings.HasPrefix(s, spooledMark) }

// Open returns the contents of s, a string decoded from Data: a reader of
// the spooled string it stands for (JSON escapes decoded as it reads), or
// of s itself.
func (j SpooledJSON) Open(s string) (io.ReadCloser, error) {
	if !j.Spooled(s) {
		return io.NopCloser(strings.NewReader(s)), nil
	}
	i, err := strconv.Atoi(strings.TrimPrefix(s, spooledMark))
	if err != nil || i < 0 || i >= len(j.strings) {
		return nil, fmt.Errorf("the answer's string %q is not one Chorus spooled", s)
	}
	f, err := os.Open(j.strings[i])
	if err != nil {
		return nil, err
	}
	return &unescaper{r: bufio.NewReaderSize(f, 64<<10), c: f}, nil
}

// Text returns the contents of s, a string decoded from Data, in memory:
// for the fields read as words (a transcript, a reply). More than limit
// bytes wrap ErrTooLarge.
func (j SpooledJSON) Text(s string, limit int64) (string, error) {
	if !j.Spooled(s) {
		return s, nil
	}
	r, err := j.Open(s)
	if err != nil {
		return "", err
	}
	defer r.Close()
	var b strings.Builder
	n, err := io.Copy(&b, io.LimitReader(r, limit+1))
	switch {
	case err != nil:
		return "", err
	case n > limit:
		return "", fmt.Errorf("a string of the answer is over %d bytes: %w", limit, ErrTooLarge)
	}
	return validUTF8(b.String()), nil
}

// validUTF8 replaces each byte of s that is not UTF-8 by U+FFFD, as
// encoding/json does for the strings it decodes.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r) // RuneError for an invalid byte
		i += size
	}
	return b.String()
}

// ReadJSON reads a JSON answer from r as SpooledJSON: strings longer than
// maxString bytes (0: DefaultJSONString) go to temporary files in the
// spool's directory, the rest stays in Data. More than the spool's limit
// in all wraps ErrTooLarge, a failure to store a string ErrStore; a read
// error is returned as it is. On any error no temporary file is left. The
// text is not validated: decoding Data does that.
func (s Spool) ReadJSON(r io.Reader, maxString int) (SpooledJSON, error) {
	if maxString <= 0 {
		maxString = DefaultJSONString
	}
	inMem := s.InMemory
	if inMem <= 0 {
		inMem = DefaultInMemory
	}
	js := &jsonSpooler{dir: s.Dir, max: maxString, inMem: int(inMem)}
	limit := s.Limit()
	buf := make([]byte, 64<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		total += int64(n)
		if total > limit {
			js.discard()
			return SpooledJSON{}, fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)
		}
		if werr := js.write(buf[:n]); werr != nil {
			js.discard()
			return SpooledJSON{}, fmt.Errorf("%w: %w", ErrStore, werr)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			js.discard()
			return SpooledJSON{}, err
		}
	}
	if js.inString {
		// An unterminated string: keep what came, for the decoder to
		// refuse with a message that quotes it.
		if err := js.endString(); err != nil {
			js.discard()
			return SpooledJSON{}, fmt.Errorf("%w: %w", ErrStore, err)
		}
	}
	if js.pending != "" {
		if err := js.settle(false); err != nil {
			js.discard()
			return SpooledJSON{}, fmt.Errorf("%w: %w", ErrStore, err)
		}
	}
	data, err := js.text()
	if err != nil {
		js.discard()
		return SpooledJSON{}, fmt.Errorf("%w: %w", ErrStore, err)
	}
	return SpooledJSON{Data: data, strings: js.files}, nil
}

// jsonSpooler is ReadJSON's scanner: outside strings it copies the text;
// inside one it collects the raw bytes, moving to a file past max.
type jsonSpooler struct {
	dir   string
	max   int
	inMem int

	// The text goes to out, and to outFile once it passes inMem (an
	// answer of numbers is all structure): read back exactly sized.
	out      bytes.Buffer
	outFile  *os.File
	outErr   error
	inString bool
	escaped  bool
	str      []byte   // the current string while it is short
	file     *os.File // the current string once it is long
	files    []string
	// pending is a long string just ended: a value, unless the next
	// byte of the text is ':' and makes it a key, which stays in the
	// text.
	pending string
}

func (js *jsonSpooler) write(p []byte) error {
	for len(p) > 0 {
		if js.pending != "" {
			i := 0
			for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
				i++
			}
			if i == len(p) {
				js.emit(p)
				return js.outErr
			}
			if err := js.settle(p[i] == ':'); err != nil {
				return err
			}
		}
		if !js.inString {
			i := bytes.IndexByte(p, '"')
			if i < 0 {
				js.emit(p)
				return js.outErr
			}
			js.emit(p[:i])
			js.inString, js.escaped, js.str = true, false, js.str[:0]
			p = p[i+1:]
			continue
		}
		end := -1
		for i := 0; i < len(p); {
			if js.escaped {
				js.escaped = false
				i++
				continue
			}
			k := bytes.IndexAny(p[i:], "\"\\")
			if k < 0 {
				break
			}
			i += k
			if p[i] == '\\' {
				js.escaped = true
				i++
				continue
			}
			end = i
			break
		}
		if end < 0 {
			return js.collect(p)
		}
		if err := js.collect(p[:end]); err != nil {
			return err
		}
		if err := js.endString(); err != nil {
			return err
		}
		p = p[end+1:]
	}
	return nil
}

// emit adds to the text.
func (js *jsonSpooler) emit(p []byte) {
	if js.outErr != nil {
		return
	}
	if js.outFile == nil && js.out.Len()+len(p) <= js.inMem {
		js.out.Write(p)
		return
	}
	if js.outFile == nil {
		f, err := os.CreateTemp(js.dir, "chorus-json-*.part")
		if err != nil {
			js.outErr = err
			return
		}
		js.outFile = f
		if _, err := f.Write(js.out.Bytes()); err != nil {
			js.outErr = err
			return
		}
		js.out = bytes.Buffer{}
	}
	if _, err := js.outFile.Write(p); err != nil {
		js.outErr = err
	}
}

// text returns the whole text, read back exactly sized when it spilled.
func (js *jsonSpooler) text() ([]byte, error) {
	if js.outErr != nil {
		return nil, js.outErr
	}
	if js.outFile == nil {
		return js.out.Bytes(), nil
	}
	f := js.outFile
	js.outFile = nil
	defer os.Remove(f.Name())
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, st.Size())
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return data, nil
}

// collect adds raw string bytes to the current string.
func (js *jsonSpooler) collect(p []byte) error {
	if js.file == nil && len(js.str)+len(p) <= js.max {
		js.str = append(js.str, p...)
		return nil
	}
	if err := js.spill(); err != nil {
		return err
	}
	_, err := js.file.Write(p)
	return err
}

// spill moves the current string to a file, if it is not in one.
func (js *jsonSpooler) spill() error {
	if js.file != nil {
		return nil
	}
	f, err := os.CreateTemp(js.dir, "chorus-json-*.part")
	if err != nil {
		return err
	}
	js.file = f
	if _, err := f.Write(js.str); err != nil {
		return err
	}
	js.str = js.str[:0]
	return nil
}

// endString closes the current string: in the text, or as a marker.
func (js *jsonSpooler) endString() error {
	js.inString = false
	if js.file == nil && bytes.HasPrefix(js.str, []byte(`\u0000chorus-spooled:`)) {
		// A string that would read as a marker is spooled, so it reads
		// as itself.
		if err := js.spill(); err != nil {
			return err
		}
	}
	if js.file == nil {
		js.emit([]byte{'"'})
		js.emit(js.str)
		js.emit([]byte{'"'})
		return js.outErr
	}
	f := js.file
	js.file = nil
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	js.pending = f.Name()
	return nil
}

// settle places the long string that just ended: as a marker when it is a
// value, back in the text when it is a key.
func (js *jsonSpooler) settle(key bool) error {
	name := js.pending
	js.pending = ""
	if !key {
		js.files = append(js.files, name)
		js.emit(fmt.Appendf(nil, `"\u0000chorus-spooled:%d"`, len(js.files)-1))
		return js.outErr
	}
	defer os.Remove(name)
	raw, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	js.emit([]byte{'"'})
	js.emit(raw)
	js.emit([]byte{'"'})
	return js.outErr
}

// discard removes every file written.
func (js *jsonSpooler) discard() {
	if js.outFile != nil {
		js.outFile.Close()
		os.Remove(js.outFile.Name())
		js.outFile = nil
	}
	if js.file != nil {
		js.file.Close()
		os.Remove(js.file.Name())
		js.file = nil
	}
	for _, p := range js.files {
		os.Remove(p)
	}
	js.files = nil
	if js.pending != "" {
		os.Remove(js.pending)
		js.pending = ""
	}
}

// unescaper reads a raw JSON string's contents, decoding its escapes.
type unescaper struct {
	r       *bufio.Reader
	c       io.Closer
	pending []byte
}

// errBadEscape is a malformed escape in a spooled string.
var errBadEscape = errors.New("malformed escape in a JSON string")

func (u *unescaper) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(u.pending) > 0 {
			c := copy(p[n:], u.pending)
			u.pending = u.pending[c:]
			n += c
			continue
		}
		b, err := u.r.ReadByte()
		if err != nil {
			if n > 0 && err == io.EOF {
				return n, nil
			}
			return n, err
		}
		if b != '\\' {
			p[n] = b
			n++
			continue
		}
		e, err := u.r.ReadByte()
		if err != nil {
			return n, errBadEscape
		}
		switch e {
		case '"', '\\', '/':
			p[n] = e
		case 'b':
			p[n] = '\b'
		case 'f':
			p[n] = '\f'
		case 'n':
			p[n] = '\n'
		case 'r':
			p[n] = '\r'
		case 't':
			p[n] = '\t'
		case 'u':
			r, err := u.hex4()
			if err != nil {
				return n, err
			}
			if utf16.IsSurrogate(r) {
				// A pair's second half follows as another \uXXXX; a
				// half alone is U+FFFD, as encoding/json reads it.
				second := rune(-1)
				if a, _ := u.r.Peek(6); len(a) == 6 && a[0] == '\\' && a[1] == 'u' {
					if v, err := strconv.ParseUint(string(a[2:]), 16, 32); err == nil {
						second = rune(v)
					}
				}
				if d := utf16.DecodeRune(r, second); d != utf8.RuneError {
					_, _ = u.r.Discard(6)
					r = d
				} else {
					r = utf8.RuneError
				}
			}
			u.pending = utf8.AppendRune(nil, r)
			continue
		default:
			return n, errBadEscape
		}
		n++
	}
	return n, nil
}

func (u *unescaper) hex4() (rune, error) {
	var h [4]byte
	if _, err := io.ReadFull(u.r, h[:]); err != nil {
		return 0, errBadEscape
	}
	v, err := strconv.ParseUint(string(h[:]), 16, 32)
	if err != nil {
		return 0, errBadEscape
	}
	return rune(v), nil
}

func (u *unescaper) Close() error { return u.c.Close() }
