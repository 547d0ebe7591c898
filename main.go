// Command chorus is a terminal chat application in which a local LLM (the
// controller, on Ollama or another LLM server) plans each request into
// tasks, picks an expert model for every task, runs the tasks on local or
// Hugging Face endpoints, and writes the answer from their results.
//
// The commands live in package cli (`chorus --help` lists them all); the
// wiring of the engine and the chat service in package app. This file only
// holds what must be at the module's root: the embedded config.yaml and
// the version a release build stamps in.
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

// version is set at release builds with -ldflags "-X main.version=v1.2.3";
// other builds say what the Go toolchain recorded about them.
var version = ""

func main() {
	os.Exit(cli.Main(context.Background(), cli.Options{Defaults: defaultConfig, Version: version}, os.Args[1:]))
}
