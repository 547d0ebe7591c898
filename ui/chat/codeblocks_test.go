package chat

import "testing"

func TestCodeBlocks(t *testing.T) {
	got := CodeBlocks("x\n```go\nfunc a() {}\n```\ntext\n~~~\nraw\n~~~\n```unterminated\nno")
	if len(got) != 2 || got[0].Lang != "go" || got[0].Code != "func a() {}" || got[1].Code != "raw" {
		t.Fatalf("codeBlocks = %+v", got)
	}
}

func TestCloseOpenFence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"```go\nfunc f() {\n", "```go\nfunc f() {\n```"},
		{"```go\nx\n```\nafter", "```go\nx\n```\nafter"},
		{"````md\n```go\ninner\n```\nstill open", "````md\n```go\ninner\n```\nstill open\n````"},
		{"~~~\ncode", "~~~\ncode\n~~~"},
		{"``inline`` is no fence", "``inline`` is no fence"},
	} {
		if got := CloseOpenFence(tc.in); got != tc.want {
			t.Errorf("CloseOpenFence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
