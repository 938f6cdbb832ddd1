# sessiontree — every entry point. `make test` installs what it needs (Chromium from
# Debian's packages, pinned Go and Node tools under .tools/) and runs every test.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO    ?= go
PORT  ?= 8080
TOOLS := $(CURDIR)/.tools
export PATH := $(TOOLS)/bin:$(TOOLS)/node_modules/.bin:$(PATH)

.PHONY: help tools test vet test-core fuzz bench bench-core demo

help:
	@echo "make test    install what the tests need, then run every test"
	@echo "make demo    build and serve the demo page on http://127.0.0.1:$(PORT)"
	@echo "make bench   run the benchmarks and print the ratio tables"

## tools: Chromium, wasmbrowsertest and the Node dev tools, pinned (idempotent, quiet)
tools:
	@$(TOOLS)/install.sh

## test: everything, from a clean clone
test: tools vet test-core

vet:
	@echo "== go vet, gofmt"
	@$(GO) vet ./...
	@GOOS=js GOARCH=wasm $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

test-core:
	@echo "== core: go test (native)"
	@$(GO) test -count=1 ./core/...

## fuzz: run every fuzz target for FUZZTIME each (default 20s)
FUZZTIME ?= 20s
fuzz:
	@for pkg in $$($(GO) list ./core/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== fuzz $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

## bench: benchmarks with ratio tables (numbers go in the README)
bench: bench-core

bench-core:
	@echo "== core benchmarks (native)"
	@$(GO) test -run '^$$' -bench . -benchmem -count=1 ./core/ | $(GO) run ./core/internal/benchtable

## demo: the demo page (web/)
demo:
	@echo "The demo page (web/) is not built yet: once it exists, 'make demo' builds the"
	@echo "wasm module and serves web/ on http://127.0.0.1:$(PORT)."
