package endpoints

import (
	"slices"
	"testing"
)

func TestParseProviders(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
	}{
		{nil, []string{"auto"}},
		{[]string{"auto"}, []string{"auto"}},
		{[]string{"Fal-AI", "auto"}, []string{"fal-ai", "auto"}},
		{[]string{"fal-ai, replicate together"}, []string{"fal-ai", "replicate", "together"}},
		{[]string{"hf-inference", "replicate", "together", "nebius"}, []string{"hf-inference", "replicate", "together", "nebius"}},
	} {
		got, err := ParseProviders(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range [][]string{{"fal"}, {"auto", "auto"}, {""}, {"groq"}, {"fal-ai,fal-ai"}} {
		if got, err := ParseProviders(bad); err == nil {
			t.Errorf("%q accepted as %v", bad, got)
		}
	}
}
