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
.PHONY: build test-wasm test-js bench-js

help:
	@echo "make test    install what the tests need, then run every test"
	@echo "make demo    build and serve the demo page on http://127.0.0.1:$(PORT)"
	@echo "make bench   run the benchmarks and print the ratio tables"

## tools: Chromium, wasmbrowsertest and the Node dev tools, pinned (idempotent, quiet)
tools:
	@$(TOOLS)/install.sh

## test: everything, from a clean clone
test: tools vet test-core test-wasm test-js

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
bench: bench-core bench-js bench-formats

bench-core:
	@echo "== core benchmarks (native)"
	@$(GO) test -run '^$$' -bench . -benchmem -count=1 ./core/ | $(GO) run ./core/internal/benchtable

## bench-formats: import throughput (MB/s) of each JSONL format and ChatGPT on ~20 MB inputs, natively and in wasm (headless Chromium)
bench-formats:
	@echo "== formats: import benchmarks (native)"
	@$(GO) test -run '^$$' -bench Import -benchtime 3x -count=1 ./core/formats/
	@echo "== formats: import benchmarks (GOOS=js GOARCH=wasm, headless Chromium)"
	@GOOS=js GOARCH=wasm $(GO) test -run '^$$' -bench Import -benchtime 1x -count=1 ./core/formats/ 2>&1 | (grep -v 'unknown IPAddressSpace' || true)

## build: the browser module js/sessiontree.wasm and wasm_exec.js beside it (only when stale)
WASM_SRC  := $(shell find core wasm/module -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm/wasm_exec.js
build: js/sessiontree.wasm js/wasm_exec.js

js/sessiontree.wasm: $(WASM_SRC)
	@echo "== build js/sessiontree.wasm"
	@GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -o $@ ./wasm/module

js/wasm_exec.js: $(WASM_EXEC)
	@cp $< $@

## test-wasm: the bridge's tests and the core's own suite, GOOS=js in headless Chromium
# wasmbrowsertest v0.11.0 prints "unknown IPAddressSpace" lines with this Chromium: noise.
test-wasm:
	@echo "== wasm/module and core: go test (GOOS=js GOARCH=wasm, headless Chromium)"
	@GOOS=js GOARCH=wasm $(GO) test -count=1 ./wasm/module/ ./core/... 2>&1 | (grep -v 'unknown IPAddressSpace' || true)

## test-js: the JS API's tests in Node and in headless Chromium, and tsc on the .d.ts
test-js: build
	@echo "== js: node --test"
	@node --test js/test/*.test.js
	@echo "== js: the same tests in headless Chromium"
	@node js/test/browser.mjs js/test/*.test.js
	@echo "== js: tsc --noEmit on sessiontree.d.ts"
	@tsc --noEmit -p js/test/tsconfig.json

## bench-js: the JS API against a plain-JS peer, in Node and headless Chromium
bench-js: build
	@node js/bench/run.mjs

## demo: the demo page (web/)
demo:
	@echo "The demo page (web/) is not built yet: once it exists, 'make demo' builds the"
	@echo "wasm module and serves web/ on http://127.0.0.1:$(PORT)."
