package httpwire

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// ErrTooLarge is wrapped when a body is over its limit. scope and
// endpoints name the same error, so one errors.Is finds a limit wherever
// it was hit.
var ErrTooLarge = errors.New("too large")

// BodyError is an answer body that could not be read whole: over the
// limit — refused by its Content-Length before a byte of it was read, or
// once the count passed the limit — or cut off mid-way, when the
// connection closed before the body ended. Neither means the server is
// unreachable: it answered.
type BodyError struct {
	// Limit is the most Chorus accepts.
	Limit int64
	// Declared is the Content-Length, -1 when the server sent none.
	Declared int64
	// Read is how much had been read when it ended.
	Read int64
	// Err is ErrTooLarge for a body over the limit, else the read error
	// (io.ErrUnexpectedEOF for a body shorter than declared).
	Err error
}

func (e *BodyError) Error() string {
	switch {
	case e.TooLarge() && e.Declared > e.Limit:
		return fmt.Sprintf("the answer is %s, more than the %s Chorus accepts; it was refused without being read", HumanSize(e.Declared), HumanSize(e.Limit))
	case e.TooLarge():
		return fmt.Sprintf("the answer is more than the %s Chorus accepts; it was refused once that much had arrived", HumanSize(e.Limit))
	case e.Declared >= 0:
		return fmt.Sprintf("the answer was cut off after %s of %s (%v)", HumanSize(e.Read), HumanSize(e.Declared), e.Err)
	}
	return fmt.Sprintf("the answer was cut off after %s (%v)", HumanSize(e.Read), e.Err)
}

// Unwrap returns the cause: ErrTooLarge or the read error.
func (e *BodyError) Unwrap() error { return e.Err }

// TooLarge reports whether the body was refused for its size.
func (e *BodyError) TooLarge() bool { return errors.Is(e.Err, ErrTooLarge) }

// Body returns resp's body bounded to limit bytes: a *BodyError at once
// when its Content-Length is over the limit, else a reader that fails
// with a *BodyError once more than limit bytes arrive or when the body is
// cut off. Every bounded read of an answer goes through it. The body is
// not closed.
func Body(resp *http.Response, limit int64) (io.Reader, error) {
	if resp.ContentLength > limit {
		return nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Err: ErrTooLarge}
	}
	return &bounded{r: io.LimitReader(resp.Body, limit+1), limit: limit, declared: resp.ContentLength}, nil
}

// ReadBody reads a small body into memory — an error body, a status
// answer, a JSON page — bounded as Body bounds it. Failures are
// *BodyError. The body is not closed.
func ReadBody(resp *http.Response, limit int64) ([]byte, error) {
	r, err := Body(resp, limit)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// CopyBody copies resp's body to w, bounded as Body bounds it, and
// returns the bytes copied. A failure to read is a *BodyError; a failure
// of w is returned as it is. The body is not closed.
func CopyBody(w io.Writer, resp *http.Response, limit int64) (int64, error) {
	r, err := Body(resp, limit)
	if err != nil {
		return 0, err
	}
	return io.Copy(w, r)
}

// bounded counts what it reads and turns the end of a body over the
// limit, or cut short, into a *BodyError.
type bounded struct {
	r        io.Reader
	limit    int64
	declared int64
	n        int64
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.n += int64(n)
	if b.n > b.limit {
		return n, &BodyError{Limit: b.limit, Declared: b.declared, Read: b.n, Err: ErrTooLarge}
	}
	if err != nil && err != io.EOF {
		err = &BodyError{Limit: b.limit, Declared: b.declared, Read: b.n, Err: err}
	}
	return n, err
}

// HumanSize renders a byte count for messages.
func HumanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
