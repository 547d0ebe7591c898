package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/chorusai/chorus/conversation"
	"github.com/chorusai/chorus/internal/fakeollama"
	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/sessions"
)

// TestSessionGrantsNothingByItself (issue 25, 6): a file the user attached
// in one turn may be used again in the chat's later turns — the chat
// remembers what its user gave. A session loaded from disk grants nothing
// by itself: edited to list a key among a turn's attachments, resources
// and report files, it does not make a follow-up turn read it, and
// neither does the attachment of a turn another process ran.
func TestSessionGrantsNothingByItself(t *testing.T) {
	r := newRig(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	key := filepath.Join(dir, "id_rsa.txt")
	secret := "-----BEGIN OPENSSH PRIVATE KEY----- s3ss10n-k3y"
	if err := os.WriteFile(notes, []byte("the meeting is at noon"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	// The planner summarises the file the request names last; the
	// controller does the summary itself, reading the file's words.
	r.srv.OnChat(func(req *api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if pipeline.PromptStage(last) == string(pipeline.StagePlanning) {
			target := notes
			if strings.Contains(last, "the key") {
				target = key
			}
			return fakeollama.Reply{Content: fmt.Sprintf(`{"tasks":[{"task":"summarization","id":1,"dep":[],"args":{"text":%q}}]}`, target)}
		}
		return fakeollama.Reply{Content: "Summary done."}
	})
	run := func(c *conversation.Chat, request string, attach ...string) *pipeline.Report {
		t.Helper()
		res := c.Run(context.Background(), conversation.Request{Request: request, Attachments: attach}, discard)
		if res.Err != nil || res.SaveErr != nil {
			t.Fatalf("%s: %v %v", request, res.Err, res.SaveErr)
		}
		return res.Report
	}
	ran := func(rep *pipeline.Report) bool {
		return len(rep.Tasks) == 1 && rep.Tasks[0].Status == pipeline.StatusOK
	}

	first := r.svc.Chat(conversation.ChatOptions{})
	if rep := run(first, "summarise this", notes); !ran(rep) {
		t.Fatalf("the attached file: %+v", rep.Tasks)
	}
	if rep := run(first, "and once more"); !ran(rep) {
		t.Fatalf("the file this chat's user attached a turn ago: %+v", rep.Tasks)
	}

	// Someone edits the saved session to list the key everywhere.
	id := first.Session().ID()
	st := sessions.Store{Dir: r.dir}
	s, err := st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	s.Turns[0].Attachments = append(s.Turns[0].Attachments, key)
	s.Turns[0].Resources = append(s.Turns[0].Resources, key)
	s.Turns[1].Request += " and " + key
	if s.Turns[1].Report != nil {
		s.Turns[1].Report.Files = append(s.Turns[1].Report.Files, key)
		s.Turns[1].Report.Named = append(s.Turns[1].Report.Named, key)
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(r.dir, id+".json"), b, 0o600); err != nil {
		t.Fatal(err)
	}

	second := r.svc.Chat(conversation.ChatOptions{})
	if _, err := second.Open(id); err != nil {
		t.Fatal(err)
	}
	before := len(r.srv.ChatRequests())
	rep := run(second, "summarise the key above")
	if len(rep.Tasks) != 0 || !strings.Contains(strings.Join(rep.Notes, " "), key+" is not a file you gave this turn — attach it with @path or --attach") {
		t.Fatalf("the session's key should be refused with the fix: tasks %+v notes %v", rep.Tasks, rep.Notes)
	}
	if rep := run(second, "summarise the notes again"); len(rep.Tasks) != 0 {
		t.Errorf("a file another chat's user attached was read from the session: %+v", rep.Tasks)
	}
	for _, req := range r.srv.ChatRequests()[before:] {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, secret) {
				t.Fatal("the key's text reached the controller")
			}
		}
	}
	if rep := run(second, "summarise the notes again", notes); !ran(rep) {
		t.Errorf("attached again, the file is read: %+v", rep.Tasks)
	}
}
