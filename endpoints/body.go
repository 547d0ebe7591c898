package endpoints

import (
	"net/http"

	"github.com/chorusai/chorus/httpwire"
)

// ReadBody reads an answer body into a Blob through the spool — in memory
// when small, in a temporary file when large — bounded by the spool's
// limit as httpwire.Body bounds it: refused by its Content-Length before
// a byte is read, or once the count passes the limit. Failures are
// *httpwire.BodyError, except a failure to store the body (a full disk,
// ErrStore). The body is not closed.
func (s Spool) ReadBody(resp *http.Response) (Blob, []byte, error) {
	r, err := httpwire.Body(resp, s.Limit())
	if err != nil {
		return Blob{}, nil, err
	}
	return s.Copy(r)
}
