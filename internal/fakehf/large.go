package fakehf

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// bodyShape is a scripted answer body that the fake generates while it
// sends it, so a test can ask for hundreds of megabytes without the fake
// holding them (which would hide the client's own memory use).
type bodyShape struct {
	contentType string
	size        int64 // the body's length as sent in Content-Length
	b64JSON     bool  // {"data":[{"b64_json":"…"}]} around a base64 PNG
	cutAfter    int64 // > 0: close the connection after this many bytes
	noLength    bool  // send no Content-Length (chunked)
}

// LargeBody makes every successful answer a size-byte body of contentType:
// a PNG signature followed by filler, generated while it is sent. The body
// declares its Content-Length unless chunked is true.
func (m *ModelBehaviour) LargeBody(contentType string, size int64, chunked bool) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shape = &bodyShape{contentType: contentType, size: size, noLength: chunked}
	return m
}

// LargeJSONImage makes every successful answer an image in JSON, as some
// deployments send text-to-image results: {"data":[{"b64_json": …}]}, the
// base64 of a PNG-signed file of about size bytes, generated while it is
// sent.
func (m *ModelBehaviour) LargeJSONImage(size int64) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.shape = &bodyShape{contentType: "application/json", size: size, b64JSON: true}
	return m
}

// Chunked makes the scripted large answer (LargeBody, LargeJSONImage) go
// without a Content-Length, so the client learns its size only by reading.
func (m *ModelBehaviour) Chunked() *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shape != nil {
		m.shape.noLength = true
	}
	return m
}

// CutOff makes every successful answer stop after n bytes of its body and
// close the connection, while its Content-Length promised the whole body:
// a server or proxy dying mid-answer. The answer is the model's default
// one, or a LargeBody.
func (m *ModelBehaviour) CutOff(n int64) *ModelBehaviour {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cutAfter = n
	return m
}

// BytesSent returns how many body bytes the model's successful answers
// have written to the connection so far. Bytes the client never read
// stay in socket buffers at most, so a client that refuses a body early
// keeps this far below the body's size.
func (m *ModelBehaviour) BytesSent() int64 { return m.sent.Load() }

// pngSignature starts a generated image body, so its type sniffs as PNG.
var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// signatureFor is the head of a generated body of contentType: a real
// file's first bytes, so the body sniffs as what it claims to be.
func signatureFor(contentType string) []byte {
	switch {
	case strings.HasPrefix(contentType, "audio/"):
		return []byte("RIFF\xff\xff\xff\x7fWAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x80\x3e\x00\x00")
	case strings.HasPrefix(contentType, "video/"):
		return []byte("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2")
	}
	return pngSignature
}

// filler is the body generator: a file signature, then a repeating
// pattern.
type filler struct {
	left int64
	off  int64
	sig  []byte
}

func (f *filler) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	n = min(n, f.left)
	for i := int64(0); i < n; i++ {
		pos := f.off + i
		sig := f.sig
		if sig == nil {
			sig = pngSignature
		}
		if pos < int64(len(sig)) {
			p[i] = sig[pos]
		} else {
			p[i] = byte(pos % 251)
		}
	}
	f.off += n
	f.left -= n
	return int(n), nil
}

// countingWriter counts what reaches the connection.
type countingWriter struct {
	w http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// serveShape sends a generated body, or its first cutAfter bytes followed
// by a closed connection.
func (m *ModelBehaviour) serveShape(w http.ResponseWriter, s bodyShape, def reply) {
	var body io.Reader
	var size int64
	switch {
	case s.b64JSON:
		raw := s.size * 3 / 4
		prefix, suffix := `{"data":[{"b64_json":"`, `"}]}`
		size = int64(len(prefix)) + int64(base64.StdEncoding.EncodedLen(int(raw))) + int64(len(suffix))
		pr, pw := io.Pipe()
		go func() {
			enc := base64.NewEncoder(base64.StdEncoding, pw)
			_, err := io.Copy(enc, &filler{left: raw})
			if err == nil {
				err = enc.Close()
			}
			pw.CloseWithError(err)
		}()
		defer pr.Close()
		body = io.MultiReader(strings.NewReader(prefix), pr, strings.NewReader(suffix))
	case s.size > 0:
		size, body = s.size, &filler{left: s.size, sig: signatureFor(s.contentType)}
	default:
		size, body = int64(len(def.body)), bytes.NewReader(def.body)
		s.contentType = def.contentType
		if def.status != http.StatusOK {
			w.Header().Set("Content-Type", def.contentType)
			w.WriteHeader(def.status)
			_, _ = w.Write(def.body)
			return
		}
	}
	if s.contentType != "" {
		w.Header().Set("Content-Type", s.contentType)
	}
	if !s.noLength {
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
	}
	w.WriteHeader(http.StatusOK)
	out := countingWriter{w: w, n: &m.sent}
	if s.cutAfter > 0 && s.cutAfter < size {
		_, _ = io.CopyN(out, body, s.cutAfter)
		rc := http.NewResponseController(w)
		_ = rc.Flush()
		// Hijack to close the connection without finishing the body: the
		// client sees fewer bytes than Content-Length promised.
		if conn, _, err := rc.Hijack(); err == nil {
			conn.Close()
		}
		return
	}
	_, _ = io.Copy(out, body)
}
