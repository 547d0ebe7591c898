// Command chorus is a terminal chat application in which a local LLM (the
// controller, on Ollama or another LLM server) plans each request into
// tasks, picks an expert model for every task, runs the tasks on local or
// Hugging Face endpoints, and writes the answer from their results.
//
// The commands live in package cli (`chorus --help` lists them all); the
// wiring of the engine and the chat service in package app. This file only
// holds what must be at the module's root: the embedded config.yaml and
// the version and commit a release build stamps in.
package main

import (
	"context"
	_ "embed"
	"os"

	"github.com/chorusai/chorus/cli"
)

// defaultConfig is config.yaml: the documented defaults. It is embedded
// here because go:embed reads only files at or below the package's folder.
//
//go:embed config.yaml
var defaultConfig []byte

// version, commit and date are stamped in by release builds (GoReleaser's
// ldflags in .goreleaser.yaml, and `go tool task build`):
// -X main.version=v1.2.3 -X main.commit=<full hash> -X main.date=<commit
// time, RFC 3339>. Other builds say what the Go toolchain recorded about
// them (cli.StampedVersion).
var version, commit, date string

func main() {
	opts := cli.Options{Defaults: defaultConfig, Version: cli.StampedVersion(version, commit, date), Environ: os.Environ()}
	os.Exit(cli.Main(context.Background(), opts, os.Args[1:]))
}
