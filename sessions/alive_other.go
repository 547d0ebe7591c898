//go:build !unix

package sessions

// alive cannot tell here; stray files are then removed by age only.
func alive(int) bool { return true }
