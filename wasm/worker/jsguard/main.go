//go:build !js

// Command jsguard is github.com/hack-pad/safejs's jsguard analyzer, built
// against an x/tools that reads the export data of this Go release (safejs
// v0.1.0 pins x/tools v0.5.0, which cannot). `make vet` runs it over
// wasm/worker with GOOS=js: a direct syscall/js call there fails the build.
// It is its own module so that x/tools stays out of the project's go.mod.
package main

import (
	"github.com/hack-pad/safejs/jsguard"
	"golang.org/x/tools/go/analysis/singlechecker"
)

func main() { singlechecker.Main(jsguard.Analyzer) }
