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
