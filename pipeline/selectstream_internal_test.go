package pipeline

import (
	"reflect"
	"testing"
)

// TestChoiceStreamHandsOverEachChoiceOnce feeds replies a byte at a time,
// as a slow model decodes them, and checks each choice is seen exactly
// once, when its object closes — braces inside a reason included.
func TestChoiceStreamHandsOverEachChoiceOnce(t *testing.T) {
	cases := []struct {
		reply string
		want  []choicePick
		// after[i] is the reply's length when want[i] must have been seen.
		after []int
	}{
		{
			reply: `{"choices":[{"id":1,"pick":2,"reason":"a {tricky} \"one\""}, {"id":3,"pick":1,"reason":"]}"}]}`,
			want:  []choicePick{{ID: 1, Pick: 2, Reason: `a {tricky} "one"`}, {ID: 3, Pick: 1, Reason: "]}"}},
			after: []int{59, 92},
		},
		{ // cut off inside the second choice: only the first is whole
			reply: `{"choices":[{"id":2,"pick":1,"reason":"ok"},{"id":4,"pick":`,
			want:  []choicePick{{ID: 2, Pick: 1, Reason: "ok"}},
			after: []int{43},
		},
		{ // forms the schema does not ask for are left to the end
			reply: `[{"id":1,"pick":1,"reason":"bare list"}]`,
		},
	}
	for _, c := range cases {
		var got []choicePick
		var at []int
		n := 0
		s := choiceStream{onPick: func(p choicePick) { got, at = append(got, p), append(at, n) }}
		for i := range len(c.reply) {
			n = i + 1
			s.write(c.reply[i : i+1])
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.reply, got, c.want)
			continue
		}
		if !reflect.DeepEqual(at, c.after) {
			t.Errorf("%s: seen after %v bytes, want %v", c.reply, at, c.after)
		}
	}
}
