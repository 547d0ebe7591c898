package skills

import (
	"strings"
	"testing"
)

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]Limit{
		"500MB": {Bytes: 500e6}, "1.5 GiB": {Bytes: 1.5 * (1 << 30)}, "350M": {Params: 350e6}, "7B": {Params: 7e9},
		"1.3b params": {Params: 1.3e9}, "0.5K": {Params: 500}, "2": {Params: 2},
	} {
		got, err := ParseLimit(in)
		if err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	// Each of these once parsed to a zero Limit — "no limit" — or wrapped
	// around to a negative one, so the user's bound vanished without a word.
	for in, want := range map[string]string{
		"0.1": "less than one parameter", "0.0001kb": "less than one byte", "99999999999999999999t": "too large",
		"huge": "want a number", "5 furlongs": "unknown unit", "": "empty",
	} {
		if l, err := ParseLimit(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLimit(%q) = %+v, %v; want an error saying %q", in, l, err, want)
		}
	}
}
