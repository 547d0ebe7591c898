package sessions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chorusai/chorus/pipeline"
	"github.com/chorusai/chorus/skills"
)

func day(h, m int) time.Time { return time.Date(2025, 3, 1, h, m, 0, 0, time.UTC) }

// fullSession has every field set, pipeline records included.
func fullSession(st Store) *Session {
	s := st.New("  describe   the cat\nand more  ")
	s.Created = day(9, 0)
	s.Model = "qwen3:8b"
	s.Constraints = pipeline.Constraints{Licenses: []string{"mit"}, MaxSize: skills.Limit{Bytes: 1 << 30}, LocalOnly: true}
	s.AddTurn(Record{
		Request:     "describe /home/u/cat.png, then read it aloud",
		Attachments: []string{"/home/u/cat.png"},
		Answer:      "A cat on a mat. Audio: /out/speech-2.wav",
		Plan: []pipeline.Task{
			{ID: 1, Task: "image-to-text", Dep: []int{-1}, Args: map[string]string{"image": "/home/u/cat.png"}},
			{ID: 2, Task: "text-to-speech", Dep: []int{1}, Args: map[string]string{"text": "<resource>-1"}},
		},
		PlanNotes: []string{"task 3 dropped: unknown task \"dance\""},
		Models: []pipeline.ModelEvent{{ID: 1, Task: "image-to-text", Model: "Salesforce/blip-image-captioning-large", Endpoint: "huggingface",
			Reason: "best captions", Decided: "controller", Candidates: []pipeline.Candidate{{ID: "a", Endpoint: "local", Downloads: 7}}}},
		Report: &pipeline.Report{Request: "describe", Controller: "qwen3:8b", Files: []string{"/out/speech-2.wav"}, ElapsedMS: 4200,
			Tasks: []pipeline.TaskReport{
				{TaskEndEvent: pipeline.TaskEndEvent{ID: 1, Task: "image-to-text", Model: "Salesforce/blip-image-captioning-large", Endpoint: "huggingface", Status: "ok", Result: "a cat", Data: json.RawMessage(`{"generated_text":"a cat"}`), ElapsedMS: 1200}},
				{TaskEndEvent: pipeline.TaskEndEvent{ID: 2, Task: "text-to-speech", Model: "espeak-ng", Endpoint: "local", Status: "ok", Files: []string{"/out/speech-2.wav"}, ElapsedMS: 300}},
			}},
		Started:  day(9, 1),
		Finished: day(9, 2),
	})
	s.AddTurn(Record{Request: "now make it a dog", Cancelled: true, Started: day(9, 5)})
	return s
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "a", "sessions")}
	s := fullSession(st)
	before := *s
	start := time.Now()
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*s, before) {
		t.Errorf("Save modified the session")
	}
	got, err := st.Load(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Updated.Before(start.Add(-time.Second)) || got.Updated.After(time.Now().Add(time.Second)) {
		t.Errorf("Updated = %v, want the save time (~%v)", got.Updated, start)
	}
	if got.Version != Version {
		t.Errorf("Version = %d, want %d", got.Version, Version)
	}
	got.Updated = s.Updated
	// The file is indented for people to read, and that re-indents raw
	// JSON results too; compare those by content.
	for i, r := range got.Turns[0].Report.Tasks {
		if len(r.Data) > 0 {
			var c bytes.Buffer
			if err := json.Compact(&c, r.Data); err != nil {
				t.Fatal(err)
			}
			got.Turns[0].Report.Tasks[i].Data = c.Bytes()
		}
	}
	if !reflect.DeepEqual(got, s) {
		a, _ := json.MarshalIndent(got, "", " ")
		b, _ := json.MarshalIndent(s, "", " ")
		t.Errorf("round trip changed the session:\n%s\nwant\n%s", a, b)
	}
	if got.Title != "describe the cat" {
		t.Errorf("title %q", got.Title)
	}
	if want := []string{"/home/u/cat.png", "/out/speech-2.wav"}; !reflect.DeepEqual(got.Turns[0].Resources, want) {
		t.Errorf("resources %v, want %v", got.Turns[0].Resources, want)
	}

	fi, err := os.Stat(filepath.Join(st.Dir, s.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(st.Dir)
	if di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v, want 0700", di.Mode().Perm())
	}
}

func TestSaveTitlesUntitled(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	s.Turns = append(s.Turns, Record{Request: "\n\n   translate this   please\nsecond line"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	got, _ := st.Load(s.ID)
	if got.Title != "translate this please" {
		t.Errorf("title %q, want it from the first request", got.Title)
	}
}

func TestForwardCompatible(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	// A file from a future version: unknown fields everywhere.
	future := `{"version": 9, "id": "x", "title": "from the future", "created": "2030-01-01T00:00:00Z",
		"updated": "2030-01-02T00:00:00Z", "colour_scheme": "dusk", "model": "qwen9",
		"turns": [{"request": "hi", "answer": "hello", "mood": {"happy": true}, "resources": ["/a.png"]}]}`
	if err := os.WriteFile(filepath.Join(st.Dir, "20300101-000000-000-abcd.json"), []byte(future), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := st.Load("20300101-000000-000-abcd")
	if err != nil {
		t.Fatalf("a newer file should still load: %v", err)
	}
	if s.ID != "20300101-000000-000-abcd" || s.Title != "from the future" || s.Version != 9 || len(s.Turns) != 1 || s.Turns[0].Answer != "hello" {
		t.Errorf("loaded %+v", s)
	}
	list, _ := st.List()
	if len(list) != 1 || list[0].Damaged != "" || list[0].Turns != 1 || list[0].Model != "qwen9" {
		t.Errorf("list %+v", list)
	}
}

func TestInterruptedSave(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("first version")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	// A crash between writing the temporary file and renaming it leaves
	// the half-written temporary file behind and the old file in place.
	stray := filepath.Join(st.Dir, "."+s.ID+".123456.tmp")
	os.WriteFile(stray, []byte(`{"version":1,"id":"`+s.ID+`","title":"second ver`), 0o600)

	got, err := st.Load(s.ID)
	if err != nil || got.Title != "first version" {
		t.Fatalf("after an interrupted save: %v, %+v; want the old version", err, got)
	}
	list, err := st.List()
	if err != nil || len(list) != 1 || list[0].ID != s.ID || list[0].Damaged != "" {
		t.Fatalf("List = %+v, %v; want only the session, temp file ignored", list, err)
	}
	// The next save succeeds regardless, and Delete clears the debris.
	s.Title = "second version"
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Load(s.ID); got.Title != "second version" {
		t.Errorf("title %q after saving again", got.Title)
	}
	if err := st.Delete(s.ID); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(st.Dir); len(left) != 0 {
		t.Errorf("Delete left %v", left)
	}
}

func TestCrashBeforeRename(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("old title")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(st.Dir, s.ID+".json")
	old, _ := os.ReadFile(path)
	// The new version is fully written and synced, then the "crash" comes.
	var staged []byte
	st.rename = func(from, to string) error {
		staged, _ = os.ReadFile(from)
		return errors.New("simulated crash")
	}
	s.Title = "new title"
	s.AddTurn(Record{Request: "more"})
	if err := st.Save(s); err == nil || !strings.Contains(err.Error(), "simulated crash") {
		t.Fatalf("Save = %v, want the rename error", err)
	}
	if !strings.Contains(string(staged), `"new title"`) {
		t.Errorf("the temporary file did not hold the new version: %s", staged)
	}
	if now, _ := os.ReadFile(path); string(now) != string(old) {
		t.Errorf("the session file changed although the save never completed")
	}
	if got, err := st.Load(s.ID); err != nil || got.Title != "old title" {
		t.Errorf("Load after the crash = %+v, %v; want the old version", got, err)
	}
	if entries, _ := os.ReadDir(st.Dir); len(entries) != 1 {
		t.Errorf("%d files after a failed save, want 1 (temporary file removed)", len(entries))
	}
}

func TestFailedSaveKeepsOldFile(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("keep me")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	old, _ := os.ReadFile(filepath.Join(st.Dir, s.ID+".json"))
	// Make a real rename fail: a non-empty directory stands where a second
	// session's file should go.
	other := st.New("blocked")
	block := filepath.Join(st.Dir, other.ID+".json")
	os.MkdirAll(filepath.Join(block, "x"), 0o700)
	if err := st.Save(other); err == nil || !strings.Contains(err.Error(), other.ID) {
		t.Fatalf("Save over a directory: %v, want an error naming the session", err)
	}
	entries, _ := os.ReadDir(st.Dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("failed save left its temporary file %s", e.Name())
		}
	}
	if now, _ := os.ReadFile(filepath.Join(st.Dir, s.ID+".json")); string(now) != string(old) {
		t.Errorf("another session's file changed")
	}
}

func TestConcurrentSaves(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	shared := st.New("shared")
	shared.AddTurn(Record{Request: "hello", Answer: "hi"})
	const workers, saves = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*saves*2)
	ids := make([]string, workers)
	for w := range workers {
		own := st.New(fmt.Sprintf("worker %d", w))
		ids[w] = own.ID
		wg.Go(func() {
			for i := range saves {
				own.AddTurn(Record{Request: fmt.Sprintf("request %d", i)})
				if err := st.Save(own); err != nil {
					errs <- err
				}
				if err := st.Save(shared); err != nil { // the same session from every goroutine
					errs <- err
				}
				if _, err := st.List(); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	list, err := st.List()
	if err != nil || len(list) != workers+1 {
		t.Fatalf("List: %d sessions, %v; want %d", len(list), err, workers+1)
	}
	for _, id := range ids {
		s, err := st.Load(id)
		if err != nil || len(s.Turns) != saves {
			t.Errorf("session %s: %v, %d turns; want %d", id, err, len(s.Turns), saves)
		}
	}
	if s, err := st.Load(shared.ID); err != nil || len(s.Turns) != 1 || s.Turns[0].Answer != "hi" {
		t.Errorf("shared session: %v %+v", err, s)
	}
	entries, _ := os.ReadDir(st.Dir)
	if len(entries) != workers+1 {
		t.Errorf("%d files in the directory, want %d (no temporary files left)", len(entries), workers+1)
	}
}

func TestDamagedFiles(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	good := st.New("good one")
	if err := st.Save(good); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{
		"20250101-000000-000-0001": `{"version":1,"id":"x","turns":[{"request":"cut off`,
		"20250101-000000-000-0002": ``,
		"20250101-000000-000-0003": `this is not json`,
		"20250101-000000-000-0004": `null`,
		"20250101-000000-000-0005": `{"version":"one","turns":7}`,
	}
	// Written later, and dated so: a file's mtime comes from a coarse clock
	// (a kernel tick), which can be behind the good session's Updated.
	later := time.Now().Add(time.Minute)
	for id, content := range bad {
		path := filepath.Join(st.Dir, id+".json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
	}
	for id, content := range bad {
		_, err := st.Load(id)
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("%s: %v, want ErrDamaged", id, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "session "+id+" is damaged (") || !strings.Contains(msg, "it was left untouched") {
			t.Errorf("%s: message %q does not say it is damaged and untouched", id, msg)
		}
		if now, _ := os.ReadFile(filepath.Join(st.Dir, id+".json")); string(now) != content {
			t.Errorf("%s: the damaged file was changed", id)
		}
	}
	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1+len(bad) {
		t.Fatalf("List has %d entries, want %d", len(list), 1+len(bad))
	}
	var goods int
	for _, s := range list {
		if s.ID == good.ID {
			goods++
			if s.Damaged != "" || s.Title != "good one" {
				t.Errorf("good session listed as %+v", s)
			}
		} else if s.Damaged == "" {
			t.Errorf("damaged %s listed as good: %+v", s.ID, s)
		}
	}
	if goods != 1 {
		t.Errorf("good session listed %d times", goods)
	}
	// The damaged files are newer (written later): Latest says the newest
	// cannot be loaded rather than continue an older session in its place.
	latest, err := st.Latest()
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "the newest session cannot be loaded") {
		t.Errorf("Latest = %v, %v; want the newest's damage", latest, err)
	}
}

func TestListOrder(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	write := func(id, updated string) {
		body := fmt.Sprintf(`{"version":1,"id":%q,"title":"t %s","updated":%q,"model":"m","turns":[{"request":"a"},{"request":"b"}]}`, id, id, updated)
		os.WriteFile(filepath.Join(st.Dir, id+".json"), []byte(body), 0o600)
	}
	write("20250101-000000-000-aaaa", "2025-03-01T10:00:00Z")
	write("20250102-000000-000-bbbb", "2025-03-01T09:00:00Z")
	write("20250103-000000-000-cccc", "2025-03-01T11:00:00Z")
	write("20250104-000000-000-dddd", "2025-03-01T10:00:00Z")
	os.WriteFile(filepath.Join(st.Dir, "notes.txt"), []byte("x"), 0o600)
	os.Mkdir(filepath.Join(st.Dir, "sub.json"), 0o700)
	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range list {
		got = append(got, s.ID[len(s.ID)-4:])
		if s.Turns != 2 || s.Model != "m" || s.Title != "t "+s.ID {
			t.Errorf("summary %+v", s)
		}
	}
	if want := []string{"cccc", "dddd", "aaaa", "bbbb"}; !reflect.DeepEqual(got, want) {
		t.Errorf("order %v, want newest first %v (ties: newer id first)", got, want)
	}
	// Saving an old session makes it the newest.
	s, err := st.Load("20250102-000000-000-bbbb")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if latest, _ := st.Latest(); latest == nil || latest.ID != s.ID {
		t.Errorf("Latest after re-saving = %v, want %s", latest, s.ID)
	}
}

func TestMissingAndInvalid(t *testing.T) {
	t.Parallel()
	st := Store{Dir: filepath.Join(t.TempDir(), "never-created")}
	if list, err := st.List(); err != nil || len(list) != 0 {
		t.Errorf("List of a missing dir = %v, %v; want empty", list, err)
	}
	if _, err := st.Latest(); !errors.Is(err, ErrNotFound) {
		t.Errorf("Latest with no sessions: %v, want ErrNotFound", err)
	}
	if _, err := st.Load("20250101-000000-000-abcd"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "20250101-000000-000-abcd") {
		t.Errorf("Load of a missing session: %v, want ErrNotFound naming it", err)
	}
	if err := st.Delete("20250101-000000-000-abcd"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of a missing session: %v, want ErrNotFound", err)
	}
	// Ids that could reach outside the directory are refused outright.
	outside := filepath.Join(filepath.Dir(st.Dir), "victim.json")
	os.WriteFile(outside, []byte(`{"version":1,"id":"v","turns":[]}`), 0o600)
	for _, id := range []string{"../victim", "", ".hidden", "a/b", "a\\b", "..", "x.json"} {
		if _, err := st.Load(id); err == nil {
			t.Errorf("Load(%q) succeeded", id)
		}
		if err := st.Delete(id); err == nil {
			t.Errorf("Delete(%q) succeeded", id)
		}
		if err := st.Save(&Session{ID: id}); err == nil {
			t.Errorf("Save with id %q succeeded", id)
		}
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("a file outside the store was touched: %v", err)
	}
	if err := st.Save(nil); err == nil {
		t.Errorf("Save(nil) succeeded")
	}
}

func TestIDs(t *testing.T) {
	t.Parallel()
	base := time.Date(2025, 3, 1, 14, 22, 33, 123e6, time.FixedZone("CET", 3600))
	id := newID(base)
	if !strings.HasPrefix(id, "20250301-132233-123-") || !validID(id) {
		t.Errorf("id %q: want a UTC, millisecond, file-safe id", id)
	}
	prev := ""
	for i := range 50 {
		id := newID(base.Add(time.Duration(i) * time.Millisecond))
		if id <= prev {
			t.Fatalf("ids do not sort by time: %q after %q", id, prev)
		}
		prev = id
	}
	seen := map[string]bool{}
	for range 1000 {
		id := newID(base)
		if seen[id] {
			t.Fatalf("duplicate id %q for the same instant", id)
		}
		seen[id] = true
	}
}

func TestTitleFrom(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"  hello   world  ":      "hello world",
		"\n\n\tfirst\nsecond":    "first",
		"":                       "",
		"tab\there\x07bell":      "tab herebell",
		strings.Repeat("é", 100): strings.Repeat("é", 59) + "…",
		"please generate an image of a cat sitting on a red mat, then write a poem about it": "please generate an image of a cat sitting on a red mat…",
	}
	for in, want := range cases {
		if got := TitleFrom(in); got != want {
			t.Errorf("TitleFrom(%q) = %q, want %q", in, got, want)
		}
		if n := len([]rune(TitleFrom(in))); n > maxTitle {
			t.Errorf("TitleFrom(%q) is %d characters", in, n)
		}
	}
}

func TestOpenResolvesLatest(t *testing.T) {
	t.Parallel()
	// A fake clock a second ahead at each reading: Updated orders the
	// saves. The session saved last is created first, so its id sorts
	// lower: only Updated can make it the latest.
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	st := Store{Dir: t.TempDir(), Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
	if _, err := st.Open("latest"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest of none: %v", err)
	}
	newer := st.New("newer")
	older := st.New("older")
	older.AddTurn(Record{Request: "a"})
	newer.AddTurn(Record{Request: "b"})
	for _, s := range []*Session{older, newer} {
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"latest", "last"} {
		if s, err := st.Open(id); err != nil || s.ID != newer.ID {
			t.Fatalf("Open(%q) = %v, %v; want %s", id, s, err, newer.ID)
		}
	}
	if s, err := st.Open(older.ID); err != nil || s.ID != older.ID {
		t.Fatalf("Open(id) = %v, %v", s, err)
	}
	if _, err := st.Open("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open of a missing id: %v", err)
	}
}

// TestStoreLogs: saves and loads are logged with the id and sizes, never
// with what was said; failures as warnings.
func TestStoreLogs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	st := Store{Dir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&buf, nil))}
	s := st.New("")
	s.AddTurn(Record{Request: "the secret request", Answer: "the secret answer"})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load("missing"); err == nil {
		t.Fatal("a missing session loaded")
	}
	log := buf.String()
	for _, want := range []string{"level=INFO msg=\"session saved\" id=" + s.ID + " turns=1", "level=INFO msg=\"session loaded\" id=" + s.ID, "level=WARN msg=\"session not loaded\""} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "secret") {
		t.Errorf("the log holds the conversation:\n%s", log)
	}
}

// TestKilledSavesLeaveNothing: temporary files of saves killed before their
// rename (a dead writer) are removed by the next save; one a live process
// is writing stays.
func TestKilledSavesLeaveNothing(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("")
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(st.Dir, "."+s.ID+".999999999.123.tmp")
	live := filepath.Join(st.Dir, fmt.Sprintf(".%s.%d.456.tmp", s.ID, os.Getppid()))
	for _, p := range []string{dead, live} {
		if err := os.WriteFile(p, []byte("{partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Error("a killed save's temporary file was left behind")
	}
	if _, err := os.Stat(live); err != nil {
		t.Error("a live writer's temporary file was removed")
	}
}

// TestListCarriesTurnText: a listing carries the turns' requests and
// answers, so a search can find a session by what was said in it.
func TestListCarriesTurnText(t *testing.T) {
	t.Parallel()
	st := Store{Dir: t.TempDir()}
	s := st.New("a picture")
	s.AddTurn(Record{Request: "draw a lighthouse at dusk", Answer: "Here is your lighthouse."})
	s.AddTurn(Record{Request: "now in winter", Answer: strings.Repeat("snow ", 5000)})
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	list, err := st.List()
	if err != nil || len(list) != 1 {
		t.Fatalf("list = %+v, %v", list, err)
	}
	txt := list[0].Text
	for _, want := range []string{"draw a lighthouse at dusk", "Here is your lighthouse.", "now in winter"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the listing's text lacks %q", want)
		}
	}
	if len(txt) > MaxSearchText {
		t.Errorf("the listing's text is %d bytes, more than %d", len(txt), MaxSearchText)
	}
}
