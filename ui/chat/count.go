package chat

import "fmt"

// Count writes n and a noun that takes a plain "s": "1 turn", "3 turns".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
