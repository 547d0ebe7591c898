package chat

import "testing"

func TestCodeBlocks(t *testing.T) {
	got := CodeBlocks("x\n```go\nfunc a() {}\n```\ntext\n~~~\nraw\n~~~\n```unterminated\nno")
	if len(got) != 2 || got[0].Lang != "go" || got[0].Code != "func a() {}" || got[1].Code != "raw" {
		t.Fatalf("codeBlocks = %+v", got)
	}
}
