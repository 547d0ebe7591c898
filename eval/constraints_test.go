package eval

import (
	"strings"
	"testing"

	"github.com/chorusai/chorus/pipeline"
)

func TestConstraintsRight(t *testing.T) {
	parse := func(s string) pipeline.Constraints {
		t.Helper()
		c, err := pipeline.ParseConstraints(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		gold, plan string
		want       bool
	}{
		{"", "", true},
		{"license=apache-2.0", "license=apache-2.0", true},
		{"license=apache-2.0,mit", "license=mit,apache-2.0", true},
		{"license=apache-2.0", "license=mit", false},
		{"license=apache-2.0", "license=apache-2.0,mit", false},
		{"license=apache-2.0", "", false},
		{"", "local-only", false},
		{"local-only", "local-only", true},
		{"local-only smallest", "local-only", false},
		{"local-only smallest", "smallest local-only", true},
		{"max-size=1GB", "max-size=1GB", true},
		{"max-size=1GB", "max-size=1000MB", true},
		{"max-size=1GB", "max-size=1024MB", true},
		{"max-size=1GB", "max-size=1GiB", true},
		{"max-size=1GB", "max-size=2GB", false},
		{"max-size=1GB", "max-size=1.1GB", false},
		{"max-size=1GB", "max-size=1B", false}, // a billion parameters is no weight size
		{"max-size=500M", "max-size=0.5B", true},
		{"smallest", "best=common_voice:wer", false},
		{"best=common_voice:wer", "best=wer:common_voice", true},
		{"best=common_voice:wer", "best=common-voice,WER", true},
		{"best=common_voice:wer", "best=librispeech:wer", false},
		{"smallest tasks=image-to-text", "smallest", false},
	} {
		if got := ConstraintsRight(parse(tc.gold), parse(tc.plan)); got != tc.want {
			t.Errorf("gold %q, plan %q: right %v, want %v", tc.gold, tc.plan, got, tc.want)
		}
	}
	// A licence as a model may spell it in the reply's JSON.
	if !ConstraintsRight(parse("license=apache-2.0"), pipeline.Constraints{Licenses: []string{"Apache 2.0"}}) {
		t.Error(`"Apache 2.0" is apache-2.0`)
	}
}

func TestLoadRefusesBadConstraints(t *testing.T) {
	_, err := parseSuite("x", []byte(`{"cases":[{"id":"c1","request":"hi","gold":[],"constraints":"license"}]}`))
	if err == nil || !strings.Contains(err.Error(), "case c1") || !strings.Contains(err.Error(), "license needs a value") {
		t.Errorf("a constraint that does not read: %v", err)
	}
}
