package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/chorusai/chorus/scope"
)

// Blob is a file an expert produced: an image, a sound, a video. A small
// one is held in Data; a large one was streamed by the endpoint to a
// temporary file, Path, so a 500 MB answer never sits in memory. Exactly
// one of the two is set; MIME is its type, from which the executor picks
// the extension.
//
// A Path belongs to whoever holds the Result: the endpoint that wrote it
// never touches it again. The holder stores it with SaveAs, which moves it
// into place, or gives it up with Remove (Result.Discard for a whole
// result), so no temporary file outlives the task.
type Blob struct {
	MIME string
	Data []byte
	Path string
}

// Open reads the blob, from memory or from its temporary file.
func (b Blob) Open() (io.ReadCloser, error) {
	if b.Path == "" {
		return io.NopCloser(bytes.NewReader(b.Data)), nil
	}
	return os.Open(b.Path)
}

// Size returns the blob's length in bytes.
func (b Blob) Size() (int64, error) {
	if b.Path == "" {
		return int64(len(b.Data)), nil
	}
	st, err := os.Stat(b.Path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Bytes returns the blob's contents, reading a temporary file into memory
// when it is at most limit bytes, for the few uses that need it whole (a
// mask to overlay). A larger one wraps scope.ErrTooLarge.
func (b Blob) Bytes(limit int64) ([]byte, error) {
	if b.Path == "" {
		if int64(len(b.Data)) > limit {
			return nil, fmt.Errorf("the %s file is %d bytes, over the %d-byte limit: %w", b.MIME, len(b.Data), limit, scope.ErrTooLarge)
		}
		return b.Data, nil
	}
	f, err := os.Open(b.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("the %s file is %d bytes, over the %d-byte limit: %w", b.MIME, st.Size(), limit, scope.ErrTooLarge)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// Remove deletes the blob's temporary file, if it has one.
func (b Blob) Remove() {
	if b.Path != "" {
		_ = os.Remove(b.Path)
	}
}

// SaveAs stores the blob at path, which may exist (a name the caller
// reserved) and is replaced: Data is written, a temporary file is moved
// (renamed, or copied and removed when path is on another file system).
// On failure nothing is left at path — a full disk leaves no empty or
// partial result behind — and a temporary file is removed either way.
func (b Blob) SaveAs(path string) (err error) {
	if b.Path != "" {
		defer b.Remove()
		if os.Rename(b.Path, path) == nil {
			// CreateTemp makes files only their owner can read; a result
			// is as readable as any file Chorus writes.
			_ = os.Chmod(path, 0o644)
			return nil
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	r, err := b.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(f, r)
	return err
}

// Spool reads what an endpoint receives — an answer body, a decoded
// base64 file, a file a server wrote — into a Blob: in memory up to
// InMemory bytes, in a temporary file beyond, counted while it is read and
// refused once it passes Max. Memory use is bounded by InMemory, whatever
// the size.
type Spool struct {
	// Dir holds the temporary files; "" means os.TempDir().
	Dir string
	// InMemory is the largest blob kept in memory; 0 means
	// DefaultInMemory.
	InMemory int64
	// Max is the largest blob accepted; 0 means DefaultMaxBytes.
	Max int64
}

// Defaults for Spool.
const (
	DefaultInMemory = 4 << 20
	DefaultMaxBytes = 512 << 20
)

// SniffLen is how many leading bytes Copy returns for telling the type:
// what http.DetectContentType reads.
const SniffLen = 512

// ErrTooLarge is wrapped when a spooled blob passes Spool.Max; it is
// scope.ErrTooLarge, so one errors.Is finds a limit wherever it was hit.
var ErrTooLarge = scope.ErrTooLarge

// ErrStore is wrapped when a spool cannot store what it reads (a full
// disk), so callers tell it apart from a failure to read.
var ErrStore = errors.New("cannot store the file")

// Limit returns the spool's Max, defaults applied.
func (s Spool) Limit() int64 {
	if s.Max <= 0 {
		return DefaultMaxBytes
	}
	return s.Max
}

// Copy reads r to its end into a Blob (without MIME, which the caller
// sets) and returns its first SniffLen bytes for telling its type. More
// than Max bytes wrap ErrTooLarge, a failure to store them ErrStore; a
// read error is returned as it is, for the caller to explain (a cut-off
// answer is not an unreachable server).
// On any error no temporary file is left.
func (s Spool) Copy(r io.Reader) (Blob, []byte, error) {
	limit := s.Limit()
	inMem := s.InMemory
	if inMem <= 0 {
		inMem = DefaultInMemory
	}
	inMem = min(inMem, limit)
	head, err := io.ReadAll(io.LimitReader(r, inMem+1))
	if err != nil {
		return Blob{}, nil, err
	}
	sniff := head[:min(len(head), SniffLen)]
	if int64(len(head)) <= inMem {
		return Blob{Data: head}, sniff, nil
	}
	if int64(len(head)) > limit {
		return Blob{}, nil, fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge)
	}
	sniff = bytes.Clone(sniff)
	f, err := os.CreateTemp(s.Dir, "chorus-*.part")
	if err != nil {
		return Blob{}, nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	fail := func(err error) (Blob, []byte, error) {
		f.Close()
		os.Remove(f.Name())
		return Blob{}, nil, err
	}
	if _, err := f.Write(head); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrStore, err))
	}
	written := int64(len(head))
	head = nil // the rest streams through a small buffer
	n, err := io.Copy(fileWriter{f}, io.LimitReader(r, limit-written+1))
	var we *writeError
	switch {
	case errors.As(err, &we):
		return fail(fmt.Errorf("%w: %w", ErrStore, we.err))
	case err != nil:
		return fail(err)
	case written+n > limit:
		return fail(fmt.Errorf("more than %d bytes: %w", limit, ErrTooLarge))
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return Blob{}, nil, fmt.Errorf("%w: %w", ErrStore, err)
	}
	return Blob{Path: f.Name()}, sniff, nil
}

// fileWriter marks its failures as writeErrors, so Copy can tell a full
// disk from a connection that broke.
type fileWriter struct{ f *os.File }

func (w fileWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

// writeError is a failure to write the temporary file (a full disk),
// which Copy reports as such rather than as a failure to read.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
