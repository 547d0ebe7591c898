package pipeline

import "strings"

// objectScan is what the readers of a streamed controller reply share
// (planStream, pickStream): the reply so far, the next byte to look at,
// the nesting depth and string state, and whether the reply turned out
// not to be the one JSON object they read.
type objectScan struct {
	buf strings.Builder
	// pos is the next byte of buf to scan.
	pos   int
	depth int
	str   jsonStrings
	// off stops the scan: the reply is not in the form read here.
	off bool
}

// feed appends the next piece of the reply and has scan look at each new
// byte once, until the reader turns off.
func (o *objectScan) feed(tok string, scan func(b string, i int)) {
	if o.off {
		return
	}
	o.buf.WriteString(tok)
	b := o.buf.String()
	for ; o.pos < len(b) && !o.off; o.pos++ {
		scan(b, o.pos)
	}
}

// opening takes a byte before the reply's object began — white space is
// skipped, '{' opens it, anything else turns the reader off — and reports
// whether it did (false once the object is open).
func (o *objectScan) opening(c byte) bool {
	if o.depth != 0 {
		return false
	}
	switch c {
	case ' ', '\t', '\r', '\n':
	case '{':
		o.depth = 1
	default:
		o.off = true
	}
	return true
}
