// Package scope is Chorus's trust boundary: the one rule for which files
// and URLs a turn may touch, and the only way the rest of Chorus reads a
// file or fetches a URL on a turn's behalf.
//
// A turn may read
//
//   - files the user attached (--attach, @file, a pasted path),
//   - files whose path the user typed in their own request,
//   - the files inside a folder the user attached or typed (AllowFolder:
//     not its hidden entries),
//   - files the user gave in earlier turns of the same chat, and files
//     Chorus wrote (a session read from disk grants nothing by itself),
//   - files Chorus wrote in its output directory,
//
// and nothing else: not through a text argument, a media argument, a
// <resource>-N reference, or a path that the controller or an expert wrote.
// Paths are resolved (~, relative to the working directory, "..", symbolic
// links, as the kernel opens them) before the check, so a link out of an
// allowed folder does not pass. Every argument value of every task passes
// Gate, which finds every path a value could name, in any form.
//
// A URL is fetched only when the user gave it or a task that ran returned
// it; loopback, link-local and private addresses are refused unless the user
// typed that exact URL — checked again at every redirect and at connect
// time, so DNS cannot point an allowed name at a private address. Sizes and
// times are bounded.
//
// A refusal is a *DeniedError naming the path or URL and how to allow it;
// it never quotes a file's contents.
package scope
