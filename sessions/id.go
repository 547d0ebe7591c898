package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"regexp"
	"strings"
	"time"
)

// newID returns an id that sorts by creation time (UTC, to the millisecond)
// and is unique thanks to a random suffix, e.g. "20250301-142233-123-9f3a01bc".
// It uses only characters every file system accepts.
func newID(now time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	ts := strings.Replace(now.UTC().Format("20060102-150405.000"), ".", "-", 1)
	return ts + "-" + hex.EncodeToString(b[:])
}

// idPattern accepts ids newID makes and any other plain name, but nothing
// that could escape the directory or hide a file ("../x", ".x", "a/b").
var idPattern = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$`)

func validID(id string) bool { return idPattern.MatchString(id) }
