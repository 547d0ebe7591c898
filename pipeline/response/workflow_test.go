package response

import "testing"

// TestHumanMS: the workflow section says a task's time in the unit a
// person reads it in — milliseconds under a second, tenths of seconds
// under a minute, whole seconds past it.
func TestHumanMS(t *testing.T) {
	t.Parallel()
	for ms, want := range map[int64]string{0: "0 ms", 999: "999 ms", 1000: "1.0 s", 12345: "12.3 s", 59_949: "59.9 s", 60_000: "1m0s", 125_600: "2m6s"} {
		if got := humanMS(ms); got != want {
			t.Errorf("humanMS(%d) = %q, want %q", ms, got, want)
		}
	}
}
