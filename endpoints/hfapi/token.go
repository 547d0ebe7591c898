package hfapi

import "bytes"

// rawToken is a JSON value kept as the token inside its document rather
// than copied out: answers and error bodies are scanned for a few fields
// without duplicating the bulk around them, and a base64 file in an answer
// is decoded straight from the answer (decodeFile), so a large file in
// JSON is held once — as the answer — not three times.
type rawToken []byte

// UnmarshalJSON keeps the token. encoding/json hands an Unmarshaler a view
// of its input, which the document outlives here.
func (t *rawToken) UnmarshalJSON(b []byte) error {
	*t = b
	return nil
}

// empty reports whether the value is absent, null or "". It compares
// without converting: a string of t would copy the whole value.
func (t rawToken) empty() bool {
	return len(t) == 0 || bytes.Equal(t, []byte("null")) || bytes.Equal(t, []byte(`""`))
}
