// Package unixtest holds the Unix facilities a few tests need — a named
// pipe (FIFO), whether a process still exists, a kill — so that the test
// files build for every GOOS Chorus ships for (CI vets the darwin and
// windows builds). Where a facility is missing it returns
// errors.ErrUnsupported, and the tests that need it skip.
package unixtest
