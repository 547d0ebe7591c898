// Package testkit holds the test helpers that tests in several packages
// need: pictures to feed the image tools and checks of what they drew,
// sample input files, the real programs the command kind runs, and the
// Unix facilities (a FIFO, kill -0) behind functions that build for every
// GOOS (unix.go). Helpers about one package's own types stay with it
// (endpoints/endpointstest for the endpoint contract). Like all of internal/, it imports nothing of
// Chorus outside internal/, so the packages it serves can use it in their
// own tests without a cycle.
package testkit
