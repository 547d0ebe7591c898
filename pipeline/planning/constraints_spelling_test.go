package planning

import (
	"reflect"
	"testing"

	"github.com/chorusai/chorus/pipeline/flow"
)

// A constraint is written the command line's way (--constrain, /constrain,
// an eval suite: smallest, best=wer:common_voice, local-only, max-size=1GB)
// or the config file's (prefer: smallest, benchmark: …, local_only: true,
// max_size: 1GB): each spelling is accepted wherever a constraint can be
// written, and means the same.
func TestConstraintSpellings(t *testing.T) {
	same := [][]string{
		{"smallest", "prefer=smallest", "--prefer=smallest", "prefer=SMALLEST"},
		{"best=wer:common_voice", "prefer=best benchmark=wer:common_voice", "benchmark=wer:common_voice prefer=best",
			"prefer=best=wer:common_voice", "prefer=best:wer:common_voice", "benchmark=wer:common_voice"},
		{"local-only", "local_only", "local_only=true", "local-only=yes"},
		{"max-size=1GB", "max_size=1GB"},
		{"license=mit,apache-2.0", "licenses=mit,apache-2.0"},
		{"", "local_only=false", "prefer="},
	}
	for _, group := range same {
		want, err := flow.ParseConstraints(group[0])
		if err != nil {
			t.Fatalf("%q: %v", group[0], err)
		}
		for _, s := range group[1:] {
			got, err := flow.ParseConstraints(s)
			if err != nil {
				t.Errorf("%q is refused: %v (%q is accepted)", s, err, group[0])
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q = %+v, want %+v as for %q", s, got, want, group[0])
			}
		}
	}
	for _, bad := range []string{"prefer=cheapest", "prefer=best", "local_only=maybe"} {
		if _, err := flow.ParseConstraints(bad); err == nil {
			t.Errorf("%q is accepted", bad)
		}
	}
	// The planner's constraints object, written either way.
	for _, prefer := range []map[string]any{
		{"prefer": "best", "benchmark": "wer:common_voice"},
		{"prefer": "best=wer:common_voice"},
	} {
		c, notes := parseConstraintsJSON(prefer)
		if c.Prefer != flow.PreferBest || c.Benchmark != "wer common_voice" {
			t.Errorf("%v read as %+v (%q)", prefer, c, notes)
		}
	}
}
