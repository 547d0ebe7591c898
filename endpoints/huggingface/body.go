package huggingface

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/chorusai/chorus/endpoints"
)

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
	// Err is endpoints.ErrTooLarge for a body over the limit, else the
	// read error (io.ErrUnexpectedEOF for a body shorter than declared).
	Err error
}

func (e *BodyError) Error() string {
	switch {
	case e.TooLarge() && e.Declared > e.Limit:
		return fmt.Sprintf("the answer is %s, more than the %s Chorus accepts; it was refused without being read", humanSize(e.Declared), humanSize(e.Limit))
	case e.TooLarge():
		return fmt.Sprintf("the answer is more than the %s Chorus accepts; it was refused once that much had arrived", humanSize(e.Limit))
	case e.Declared >= 0:
		return fmt.Sprintf("the answer was cut off after %s of %s (%v)", humanSize(e.Read), humanSize(e.Declared), e.Err)
	}
	return fmt.Sprintf("the answer was cut off after %s (%v)", humanSize(e.Read), e.Err)
}

// Unwrap returns the cause: endpoints.ErrTooLarge or the read error.
func (e *BodyError) Unwrap() error { return e.Err }

// TooLarge reports whether the body was refused for its size.
func (e *BodyError) TooLarge() bool { return errors.Is(e.Err, endpoints.ErrTooLarge) }

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// SpoolBody reads an answer body into a Blob through spool — in memory
// when small, in a temporary file when large — refusing a body whose
// Content-Length is over the spool's limit before reading any of it, and
// one that passes the limit while it is read. Failures are *BodyError,
// except a failure to store the body (a full disk). The body is not
// closed.
func SpoolBody(resp *http.Response, spool endpoints.Spool) (endpoints.Blob, []byte, error) {
	limit := spool.Limit()
	if resp.ContentLength > limit {
		return endpoints.Blob{}, nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Err: endpoints.ErrTooLarge}
	}
	c := &counter{r: resp.Body}
	b, head, err := spool.Copy(c)
	if err != nil {
		if errors.Is(err, endpoints.ErrTooLarge) {
			return endpoints.Blob{}, nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Read: c.n, Err: endpoints.ErrTooLarge}
		}
		if errors.Is(err, endpoints.ErrStore) {
			return endpoints.Blob{}, nil, err
		}
		return endpoints.Blob{}, nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Read: c.n, Err: err}
	}
	return b, head, nil
}

// ReadBody reads a small body into memory — an error body, a status
// answer — refusing one over limit by its Content-Length before reading
// and by counting while reading. Failures are *BodyError. The body is not
// closed.
func ReadBody(resp *http.Response, limit int64) ([]byte, error) {
	if resp.ContentLength > limit {
		return nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Err: endpoints.ErrTooLarge}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Read: int64(len(b)), Err: err}
	}
	if int64(len(b)) > limit {
		return nil, &BodyError{Limit: limit, Declared: resp.ContentLength, Read: int64(len(b)), Err: endpoints.ErrTooLarge}
	}
	return b, nil
}

// humanSize renders a byte count for messages.
func humanSize(n int64) string {
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
