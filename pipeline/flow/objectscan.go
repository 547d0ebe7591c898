package flow

import "strings"

// JSONScan is what the readers of a streamed controller reply share
// (planStream, pickStream): the reply so far, the next byte to look at,
// the nesting depth and string state, and whether the reply turned out
// not to be the one JSON object they read.
type JSONScan struct {
	buf strings.Builder
	// pos is the next byte of buf to scan.
	pos   int
	Depth int
	Str   JSONStrings
	// off stops the scan: the reply is not in the form read here.
	Off bool
}

// Feed appends the next piece of the reply and has scan look at each new
// byte once, until the reader turns off.
func (o *JSONScan) Feed(tok string, scan func(b string, i int)) {
	if o.Off {
		return
	}
	o.buf.WriteString(tok)
	b := o.buf.String()
	for ; o.pos < len(b) && !o.Off; o.pos++ {
		scan(b, o.pos)
	}
}

// Opening takes a byte before the reply's object began — white space is
// skipped, '{' opens it, anything else turns the reader off — and reports
// whether it did (false once the object is open).
func (o *JSONScan) Opening(c byte) bool {
	if o.Depth != 0 {
		return false
	}
	switch c {
	case ' ', '\t', '\r', '\n':
	case '{':
		o.Depth = 1
	default:
		o.Off = true
	}
	return true
}
