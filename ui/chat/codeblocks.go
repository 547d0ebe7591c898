package chat

import "strings"

// CodeBlock is a fenced block of an answer.
type CodeBlock struct {
	Lang string
	Code string
}

// CodeBlocks returns the fenced code blocks of Markdown source.
func CodeBlocks(src string) []CodeBlock {
	var out []CodeBlock
	var cur *CodeBlock
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case cur == nil && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			cur = &CodeBlock{Lang: strings.TrimSpace(strings.TrimLeft(t, "`~"))}
			b.Reset()
		case cur != nil && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			cur.Code = strings.TrimSuffix(b.String(), "\n")
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return out
}

// CloseOpenFence returns src with its last code block closed when the text
// ends inside one — an answer cut off mid-block by a cancel — so what is
// appended after it ("_Cancelled._") is not drawn as code. The closing
// fence repeats the opening one's character and length, as CommonMark
// requires.
func CloseOpenFence(src string) string {
	open := ""
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		run := fenceRun(t)
		switch {
		case open == "" && run != "":
			open = run
		case open != "" && run != "" && run[0] == open[0] && len(run) >= len(open) && strings.Trim(t, run[:1]) == "":
			open = ""
		}
	}
	if open == "" {
		return src
	}
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
	}
	return src + open
}

// fenceRun is the run of three or more backticks or tildes a line opens or
// closes a fence with, or "".
func fenceRun(t string) string {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}
