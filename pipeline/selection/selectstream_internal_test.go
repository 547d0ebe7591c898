package selection

import (
	"reflect"
	"testing"
)

// TestPickStreamHandsOverPicksThenReasons feeds replies a byte at a time,
// as a slow model decodes them, and checks each pick is seen once, the
// moment its number is complete — before any reason — and each reason
// when its string closes, braces and quotes inside it included.
func TestPickStreamHandsOverPicksThenReasons(t *testing.T) {
	type seen struct {
		ID     int
		Pick   int
		Reason string
		At     int // the reply's length when it was seen
	}
	cases := []struct {
		reply string
		want  []seen
	}{
		{
			reply: `{"picks":{"1":2,"3":1},"reasons":{"1":"a {tricky} \"one\"","3":"]}"}}`,
			want: []seen{{ID: 1, Pick: 2, At: 16}, {ID: 3, Pick: 1, At: 22},
				{ID: 1, Reason: `a {tricky} "one"`, At: 59}, {ID: 3, Reason: "]}", At: 68}},
		},
		{ // spaces, a pick written as a string, a reply cut off in a reason
			reply: `{ "picks": { "2": "1" , "4" : 3 }, "reasons": { "2": "ok", "4": "cut`,
			want:  []seen{{ID: 2, Pick: 1, At: 23}, {ID: 4, Pick: 3, At: 33}, {ID: 2, Reason: "ok", At: 58}},
		},
		{ // forms the schema does not ask for are left to the end
			reply: `{"choices":[{"id":1,"pick":1,"reason":"the old list"}]}`,
		},
		{reply: `[{"id":1,"pick":1}]`},
	}
	for _, c := range cases {
		var got []seen
		n := 0
		s := pickStream{
			onPick:   func(id, pick int) { got = append(got, seen{ID: id, Pick: pick, At: n}) },
			onReason: func(id int, r string) { got = append(got, seen{ID: id, Reason: r, At: n}) },
		}
		for i := range len(c.reply) {
			n = i + 1
			s.write(c.reply[i : i+1])
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.reply, got, c.want)
		}
	}
}
