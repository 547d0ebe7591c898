package httpwire

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// answer is a response whose body holds body and declares length.
func answer(body string, length int64) *http.Response {
	return &http.Response{ContentLength: length, Body: io.NopCloser(strings.NewReader(body))}
}

// cut is a body that breaks after its bytes, as a closed connection does.
type cut struct{ r io.Reader }

func (c cut) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func TestReadBody(t *testing.T) {
	if b, err := ReadBody(answer("hello", 5), 5); err != nil || string(b) != "hello" {
		t.Errorf("within the limit: %q %v", b, err)
	}
	if b, err := ReadBody(answer("hello", -1), 5); err != nil || string(b) != "hello" {
		t.Errorf("no Content-Length, within the limit: %q %v", b, err)
	}
	var be *BodyError
	_, err := ReadBody(answer("hello!", 6), 5)
	if !errors.As(err, &be) || !be.TooLarge() || !errors.Is(err, ErrTooLarge) || be.Read != 0 || !strings.Contains(err.Error(), "refused without being read") {
		t.Errorf("declared over the limit: %v", err)
	}
	// A server that declares nothing (or lies) is counted.
	_, err = ReadBody(answer(strings.Repeat("x", 100), -1), 5)
	if !errors.As(err, &be) || !be.TooLarge() || be.Read != 6 || !strings.Contains(err.Error(), "once that much had arrived") {
		t.Errorf("counted over the limit: %v", err)
	}
	_, err = ReadBody(&http.Response{ContentLength: 10, Body: io.NopCloser(cut{strings.NewReader("hel")})}, 100)
	if !errors.As(err, &be) || be.TooLarge() || !errors.Is(err, io.ErrUnexpectedEOF) || be.Read != 3 || !strings.Contains(err.Error(), "cut off after 3 bytes of 10 bytes") {
		t.Errorf("cut off: %v", err)
	}
}

func TestCopyBody(t *testing.T) {
	var w bytes.Buffer
	if n, err := CopyBody(&w, answer("hello", -1), 5); err != nil || n != 5 || w.String() != "hello" {
		t.Errorf("within the limit: %d %q %v", n, w.String(), err)
	}
	w.Reset()
	if _, err := CopyBody(&w, answer("hello!", -1), 5); !errors.Is(err, ErrTooLarge) || w.Len() > 6 {
		t.Errorf("over the limit: %v, %d bytes written", err, w.Len())
	}
}
