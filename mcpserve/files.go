package mcpserve

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chorusai/chorus/skills"
)

// A call's files arrive as base64 in its arguments — a 50 MB file is a
// 67 MB JSON string, which the SDK already holds twice (the message and
// its arguments). They are decoded from where they stand in the arguments
// straight to disk: never copied into a Go string, never held decoded.

// input is what a call sends.
type input struct {
	Request string   `json:"request"`
	Files   []inFile `json:"files"`
}

// inFile is one file a call sends; Data is where its JSON string stands
// in the call's arguments.
type inFile struct {
	Name     string   `json:"name"`
	MIMEType string   `json:"mimeType"`
	Data     jsonSpan `json:"data"`
}

// jsonSpan is a JSON value as it stands in the document being decoded,
// not copied: encoding/json hands an Unmarshaler the slice of its input.
// It is valid while that input is — a call's arguments, for the call —
// and is only read.
type jsonSpan []byte

func (s *jsonSpan) UnmarshalJSON(b []byte) error {
	*s = b
	return nil
}

// payload is the base64 text of a file's data and the type a data: URL
// gave it: the JSON string without its quotes, decoded only when it holds
// an escape.
func (s jsonSpan) payload() (b64 []byte, mt string, err error) {
	if len(s) < 2 || s[0] != '"' {
		return nil, "", errors.New("data is not a string of base64")
	}
	b64 = s[1 : len(s)-1]
	if bytes.IndexByte(b64, '\\') >= 0 {
		var str string
		if err := json.Unmarshal(s, &str); err != nil {
			return nil, "", err
		}
		b64 = []byte(str)
	}
	if rest, ok := bytes.CutPrefix(b64, []byte("data:")); ok {
		head, data, found := bytes.Cut(rest, []byte(","))
		if !found || !bytes.HasSuffix(head, []byte(";base64")) {
			return nil, "", errors.New("a data: URL must be base64 (data:TYPE;base64,…)")
		}
		mt, b64 = string(bytes.TrimSuffix(head, []byte(";base64"))), data
	}
	return bytes.TrimSpace(b64), mt, nil
}

// decodedLen is how many bytes the file's data holds at most.
func (s jsonSpan) decodedLen() int64 {
	b64, _, err := s.payload()
	if err != nil {
		return 0
	}
	return int64(base64.StdEncoding.DecodedLen(len(b64)))
}

// readInput decodes the call's arguments and writes its files into a new
// folder of the workspace, returning their paths.
func (s *Server) readInput(req *sdk.CallToolRequest, c *client) (input, []string, error) {
	var in input
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return in, nil, fmt.Errorf("the arguments are not {request, files}: %w", err)
	}
	in.Request = strings.TrimSpace(in.Request)
	if in.Request == "" {
		return in, nil, errors.New("request is empty: say what Chorus should do")
	}
	if len(in.Files) == 0 {
		return in, nil, nil
	}
	if err := s.checkQuota(c, in.Files); err != nil {
		return in, nil, err
	}
	s.mu.Lock()
	c.calls++
	dir := filepath.Join(c.dir, fmt.Sprintf("in-%d", c.calls))
	s.mu.Unlock()
	if err := os.Mkdir(dir, 0o700); err != nil {
		return in, nil, err
	}
	var paths []string
	for i, f := range in.Files {
		p, err := writeFile(dir, i, f, paths, s.opts.MaxFile)
		if err != nil {
			return in, nil, fmt.Errorf("files[%d]: %w", i, err)
		}
		paths = append(paths, p)
	}
	return in, paths, nil
}

// writeFile decodes the file f, the i-th of a call, into dir, within
// limit: named after the name the client gave (safeName), with the
// extension of its sniffed type when it has none, numbered when an
// earlier file of the call (taken) has the name.
func writeFile(dir string, i int, f inFile, taken []string, limit int64) (string, error) {
	b64, mt, err := f.Data.payload()
	if err != nil {
		return "", err
	}
	if int64(base64.StdEncoding.DecodedLen(len(b64))) > limit+3 {
		return "", fmt.Errorf("over %s, the most Chorus accepts in one file", skills.HumanBytes(limit))
	}
	dec := base64.NewDecoder(base64.StdEncoding, bytes.NewReader(b64))
	// The head tells the type. The decoder's own io.ErrUnexpectedEOF (a
	// truncated quantum) is bad data, not a short file: read it raw.
	head := make([]byte, 512)
	n, rerr := 0, error(nil)
	for rerr == nil && n < len(head) {
		var k int
		k, rerr = dec.Read(head[n:])
		n += k
	}
	head = head[:n]
	switch {
	case rerr != nil && !errors.Is(rerr, io.EOF):
		return "", fmt.Errorf("data is not base64: %w", rerr)
	case n == 0:
		return "", errors.New("data is empty")
	}
	name := safeName(f.Name)
	if name == "" {
		name = fmt.Sprintf("file-%d", i+1)
	}
	if filepath.Ext(name) == "" {
		sniffed, _ := skills.Sniff(head)
		name += skills.ExtOfMIME(cmp.Or(sniffed, f.MIMEType, mt))
	}
	p := filepath.Join(dir, name)
	if slices.Contains(taken, p) {
		p = filepath.Join(dir, fmt.Sprintf("%d-%s", i+1, name))
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", err
	}
	_, err = out.Write(head)
	if err == nil {
		_, err = io.Copy(out, dec)
		if err != nil {
			err = fmt.Errorf("data is not base64: %w", err)
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return "", err
	}
	return p, nil
}

// safeName keeps the last element of a client's file name, letters,
// digits and . _ - only: it names a file in the workspace, nothing more.
func safeName(n string) string {
	n = filepath.Base(strings.ReplaceAll(n, "\\", "/"))
	n = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, n)
	n = strings.TrimLeft(n, ".")
	if len(n) > 100 {
		n = n[len(n)-100:]
	}
	return n
}
