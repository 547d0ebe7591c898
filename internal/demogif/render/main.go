// Command render plays a VHS tape into a GIF without VHS: the renderer of
// go tool task demo:gif, for machines without ttyd and a browser.
//
//	go run ./internal/demogif/render [-o out.gif] docs/demo.tape
//
// The programs the tape runs must be on PATH (the task puts bin/ there).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/chorusai/chorus/internal/demogif"
)

func main() {
	out := flag.String("o", "", "write the GIF here instead of the tape's Output path")
	quiet := flag.Bool("q", false, "do not log each command as it plays")
	transcript := flag.String("transcript", "", "also write every byte the programs wrote to the terminal to this file (for the screen's golden tests)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./internal/demogif/render [-o out.gif] [-q] TAPE\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out, *transcript, *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(path, out, transcript string, quiet bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	tape, err := demogif.ParseTape(path, f)
	f.Close()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := demogif.Options{Output: out, Log: os.Stderr}
	if quiet {
		opts.Log = nil
	}
	if transcript != "" {
		tf, err := os.Create(transcript)
		if err != nil {
			return err
		}
		defer tf.Close()
		opts.Transcript = tf
	}
	res, err := demogif.Play(ctx, tape, opts)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d frames, %.1fs, %d×%d cells, %.2f MB\n",
		res.Path, res.Frames, res.Duration.Seconds(), res.Cols, res.Rows, float64(res.Bytes)/1e6)
	if note := trackedNote(res.Path); note != "" {
		fmt.Fprintln(os.Stderr, note)
	}
	for _, r := range res.Missing {
		fmt.Fprintf(os.Stderr, "render: Go Mono has no %q (U+%04X); it shows as a box\n", r, r)
	}
	if len(res.Unhandled) > 0 {
		keys := make([]string, 0, len(res.Unhandled))
		for k := range res.Unhandled {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(os.Stderr, "render: ignored %s ×%d\n", k, res.Unhandled[k])
		}
	}
	return nil
}

// trackedNote says that the GIF just written replaced a file git tracks
// (docs/demo.gif, which the README shows) and how to keep or undo that;
// "" for any other file, or without git.
func trackedNote(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	cmd := exec.Command("git", "ls-files", "--error-unmatch", "--", filepath.Base(abs))
	cmd.Dir = filepath.Dir(abs)
	if cmd.Run() != nil {
		return ""
	}
	return fmt.Sprintf("render: replaced %s, which git tracks — review it and commit it, or `git checkout -- %s` to keep the old one (-o FILE, or OUT=FILE for the task, writes elsewhere)", path, path)
}
