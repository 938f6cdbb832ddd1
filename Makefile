# sessiontree — every entry point. `make test` installs what it needs (Chromium from
# Debian's packages, pinned Go and Node tools under .tools/) and runs every test.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

GO    ?= go
PORT  ?= 8080
TOOLS := $(CURDIR)/.tools
# the demo's static server (web/serve), built on first use; defined before any rule names it
WEB_SERVE := web/.bin/serve
export PATH := $(TOOLS)/bin:$(TOOLS)/node_modules/.bin:$(PATH)

.PHONY: help tools test vet test-core fuzz bench bench-core demo web-dist test-web
.PHONY: worker worker-build token test-worker bench-worker
.PHONY: build test-wasm test-js bench-js test-corpus test-corpus-if-shared

help:
	@echo "make test    install what the tests need, then run every test"
	@echo "make demo    build and serve the demo page on http://127.0.0.1:$(PORT)"
	@echo "make bench   run the benchmarks and print the ratio tables"
	@echo "make test-corpus  the corpus checks over ../shared (SESSIONTREE_SHARED=/path for another folder)"

## tools: Chromium, wasmbrowsertest and the Node dev tools, pinned (idempotent, quiet)
tools:
	@$(TOOLS)/install.sh

## test: everything, from a clean clone (the corpus checks too when ../shared is there)
test: tools vet test-core test-worker test-wasm test-js test-web test-corpus-if-shared

vet: vet-worker
	@node $(TOOLS)/makefile-check.mjs Makefile
	@echo "== go vet, gofmt"
	@$(GO) vet ./...
	@GOOS=js GOARCH=wasm $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed: $$out"; exit 1; fi

test-core:
	@echo "== core: go test (native)"
	@$(GO) test -count=1 ./core/...
	@echo "== core and wasm/internal: go test -race -short (native; -short skips the two stress tests, 8x slower under -race)"
	@$(GO) test -race -short -count=1 ./core/... ./wasm/internal/...

## test-corpus: the corpus checks over the public sample files of ../shared/testdata
## and the real-world files of ../shared/interop (each folder's SOURCES.md), read
## where they are, never copied into the repository: core's tests built with the
## tag corpus, the interchange module's imports of the sample files against the
## native ones, and the assistant-ui and ai-sdk exports of the real-world files
## judged by those libraries (js/test/corpus-judges.mjs). SESSIONTREE_SHARED=/abs/path reads another folder.
SESSIONTREE_SHARED ?= $(abspath $(CURDIR)/../shared)
test-corpus: tools build
	@if [ ! -d "$(SESSIONTREE_SHARED)/testdata" ] || [ ! -d "$(SESSIONTREE_SHARED)/interop" ]; then \
	  echo "no shared folder at $(SESSIONTREE_SHARED) (with testdata/ and interop/): make test-corpus SESSIONTREE_SHARED=/abs/path"; exit 1; fi
	@echo "== corpus: go test -tags corpus ./core/... over $(SESSIONTREE_SHARED)/testdata and $(SESSIONTREE_SHARED)/interop"
	@SESSIONTREE_SHARED="$(SESSIONTREE_SHARED)" $(GO) test -count=1 -tags corpus ./core/...
	@echo "== corpus: the interchange module imports $(SESSIONTREE_SHARED)/testdata as core/formats does natively (node --test)"
	@SESSIONTREE_SHARED="$(SESSIONTREE_SHARED)" node --test js/test/tree-interchange.test.js
	@echo "== corpus: assistant-ui's and the AI SDK's own readers on the exports of every file of $(SESSIONTREE_SHARED)/interop and interop-new (node --test)"
	@SESSIONTREE_SHARED="$(SESSIONTREE_SHARED)" node --test js/test/corpus-judges.mjs

# make test runs the corpus checks where the shared folder exists (CI has it),
# and says so in one line where it does not (a fresh clone with nothing beside it).
test-corpus-if-shared:
	@if [ -d "$(SESSIONTREE_SHARED)" ]; then $(MAKE) test-corpus; \
	  else echo "== corpus: skipped, no shared folder at $(SESSIONTREE_SHARED) (make test-corpus runs the checks over ../shared)"; fi

## fuzz: run every fuzz target for FUZZTIME each (default 20s; .tools/fuzz-one.sh: Go 1.26's
## own end-of-run deadline race, golang/go#75804, with no input written, is not a failure)
FUZZTIME ?= 20s
# Go minimizes each input that finds new coverage for up to 60 s by default,
# and those runs are not fuzzing: with the importers' seeds (whole fixture
# files) a 40 s target spent all but its first seconds minimizing (8 inputs
# tried in 40 s). A failure's minimization is bounded the same.
FUZZMINTIME ?= 1s
fuzz:
	@for pkg in $$($(GO) list ./core/... ./wasm/edge/... ./wasm/internal/...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== fuzz $$pkg $$f"; GO=$(GO) $(TOOLS)/fuzz-one.sh $$pkg $$f $(FUZZTIME) $(FUZZMINTIME); \
	  done; \
	done

## bench: benchmarks with ratio tables (numbers go in the README)
bench: bench-core bench-nav bench-worker bench-js bench-formats bench-soak bench-peers bench-huge bench-project bench-export

## bench-huge: the demo with a 200k-message (~100 MB) session against a 100-message
## chat in headless Chromium: import, open, send, switch, long tasks, memory
## (BENCH_HUGE_N=20000 for a quicker look)
.PHONY: bench-huge
bench-huge: tools web-dist $(WEB_SERVE)
	@node web/bench/huge.mjs

## bench-export: a seeded ~345 MB ChatGPT export (2,000 chats, one of 53k messages) imported
## in the demo and through sessiontree/idb on a page, then a search and a reload in the demo:
## time, longest task, memory (EXPORT_CHATS=200 EXPORT_BIG=5000 for a quicker look)
.PHONY: bench-export
bench-export: tools web-dist $(WEB_SERVE)
	@node web/bench/export.mjs

## bench-peers: a 100k-message conversation (+2,000 abandoned replies) against pi's own
## SessionManager (npm, pinned), LibreChat's and chatgpt-web-share's walks and the V8
## floor: open, full list, a 10k-deep leaf ×50, save, regenerate, append, memory; in
## Node and in headless Chromium; first the lean module's size (gzip, brotli) against
## a bare Go program built in the run (PEERS_N=20000 for a quick look, PEERS_CHROMIUM=0 or
## PEERS_NODE=0 for one of them, PEERS_ROUNDS=9 PEERS_WARMUP=2 by default, PEERS_WHO=pi for
## sessiontree against a list of them alone)
.PHONY: bench-peers
bench-peers: tools build
	@node js/bench/peers.mjs

## bench-soak: the module's memory over 1,000 append+save rounds on a 20k-message
## tree and 50 load+project+free rounds of a 100k-message file (Node; SOAK_SCALE=0.1 for a quick look)
.PHONY: bench-soak
bench-soak: build
	@node js/bench/soak.mjs
	@SESSIONTREE_FLAVOUR=full node js/bench/soak.mjs

bench-core:
	@echo "== core benchmarks (native)"
	@$(GO) test -run '^$$' -bench . -skip Navigation -benchmem -count=3 ./core/ | $(GO) run ./core/internal/benchtable

## bench-nav: what a chat view does (open, the ‹ › switch and its render's reads,
## siblings, pathLength, pathIndex, subtree) in chats of 100, 20k and 200k
## messages with a fork every 5, 50 and 2,000 and a tool-heavy one, natively and
## through the JS API in Node: the median and the slowest fork, the slowest first
## switch, and the 200k÷100 ratios measured in the same run
.PHONY: bench-nav
bench-nav: build
	@echo "== navigation benchmarks (native)"
	@$(GO) test -run '^$$' -bench Navigation -benchtime 100x -count 1 ./core/ | $(GO) run ./core/internal/benchtable
	@echo "== navigation benchmarks (Node, wasm)"
	@node js/bench/nav.mjs

## bench-formats: import throughput (MB/s) of each JSONL format and ChatGPT on ~20 MB inputs, natively and in wasm (headless Chromium), and a 100 MB Claude Code import's memory (live/input, peak/input) natively
bench-formats: tools
	@echo "== formats: import benchmarks (native)"
	@$(GO) test -run '^$$' -bench Import -benchtime 3x -count=1 ./core/formats/
	@echo "== formats: import benchmarks (GOOS=js GOARCH=wasm, headless Chromium)"
	@GOOS=js GOARCH=wasm $(GO) test -run '^$$' -bench 'Import(ClaudeCode|Pi|Codex|ChatGPT)$$' -benchtime 1x -count=1 ./core/formats/ 2>&1 | (grep -v 'unknown IPAddressSpace' || true)
	@echo "== formats: the largest real file of each format in ../shared, import and export (native)"
	@SESSIONTREE_SHARED=$${SESSIONTREE_SHARED:-$(CURDIR)/../shared} $(GO) test -run '^$$' -bench 'Real' -benchtime 3x -count=1 ./core/formats/
	@$(MAKE) build >/dev/null
	@node js/bench/formats-real.mjs

## build: the lean browser module js/sessiontree.wasm, the full one (every tree
## method plus import, export and merge: init({ full: true }), or the lean one's
## helper through initInterchange) js/sessiontree-interchange.wasm and
## wasm_exec.js beside them (only when stale)
WASM_SRC  := $(shell find core wasm/module wasm/internal -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
INTERCHANGE_SRC := $(shell find core wasm/interchange wasm/internal -name '*.go' -not -name '*_test.go' 2>/dev/null) go.mod
WASM_EXEC := $(shell $(GO) env GOROOT)/lib/wasm/wasm_exec.js
build: js/sessiontree.wasm js/sessiontree-interchange.wasm js/wasm_exec.js
# The glue packages under wasm/ (one call each, no inner loops) are built without
# inlining: ~10 KB less gzipped module, no measurable cost per call. core is not.
WASM_BUILD := GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags='-s -w' -gcflags='github.com/sessiontree/sessiontree/wasm/...=-l'

# Then wasm/internal/packdata joins the linker's ~30,000 data segments into a
# few (the same memory at start, ~6% less gzipped, ~10% more uncompressed) and
# has the runtime grow the memory in chunks of up to 2 MiB, not 512 KB (each
# growth past ~64 MB costs V8 a collection of the page's heap: growth.go).
PACKDATA := wasm/internal/packdata/main.go wasm/internal/packdata/growth.go
# $(call pack,F) rewrites F.linked, as the linker wrote it, into F.
pack = $(GO) run ./wasm/internal/packdata $(1).linked $(1) && rm -f $(1).linked
js/sessiontree.wasm: $(WASM_SRC) $(PACKDATA)
	@echo "== build js/sessiontree.wasm"
	@$(WASM_BUILD) -o $@.linked ./wasm/module
	@$(call pack,$@)

js/sessiontree-interchange.wasm: $(INTERCHANGE_SRC) $(PACKDATA)
	@echo "== build js/sessiontree-interchange.wasm"
	@$(WASM_BUILD) -o $@.linked ./wasm/interchange
	@$(call pack,$@)

js/wasm_exec.js: $(WASM_EXEC)
	@cp $< $@

# The same two modules plus one test export (st_test_hold: wasm/internal/bridge
# testhooks.go) for js/test/memory-limit.mjs; never shipped.
HOOKS_WASM := js/test/build/sessiontree-hooks.wasm js/test/build/sessiontree-interchange-hooks.wasm
# Rewritten by packdata as the shipped ones are: their memory grows in chunks
# up to the 4 GiB limit (the last chunk cut to what is left).
js/test/build/sessiontree-hooks.wasm: $(WASM_SRC) $(PACKDATA)
	@$(WASM_BUILD) -tags sessiontree_testhooks -o $@.linked ./wasm/module
	@$(call pack,$@)
js/test/build/sessiontree-interchange-hooks.wasm: $(INTERCHANGE_SRC) $(PACKDATA)
	@$(WASM_BUILD) -tags sessiontree_testhooks -o $@.linked ./wasm/interchange
	@$(call pack,$@)

## test-wasm: the bridge's tests and the core's own suite, GOOS=js in headless Chromium
# wasmbrowsertest v0.11.0 prints "unknown IPAddressSpace" lines with this Chromium: noise.
test-wasm: tools
	@echo "== wasm/internal (bridge, treecalls, fullcalls) and core: go test (GOOS=js GOARCH=wasm, headless Chromium)"
	@GOOS=js GOARCH=wasm $(GO) test -count=1 ./wasm/module/ ./wasm/interchange/ ./wasm/internal/... ./core/... 2>&1 | (grep -v 'unknown IPAddressSpace' || true)
	@echo "== wasm/module links neither core.Merge nor core/formats (a build with symbols); wasm/interchange does"
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  GOOS=js GOARCH=wasm $(GO) build -trimpath -o $$tmp/lean.wasm ./wasm/module; \
	  GOOS=js GOARCH=wasm $(GO) build -trimpath -o $$tmp/full.wasm ./wasm/interchange; \
	  if grep -aqE 'sessiontree/core\.\(\*Tree\)\.Merge|sessiontree/core/formats\.' $$tmp/lean.wasm; then echo "the lean module links merge or the formats"; exit 1; fi; \
	  grep -aq 'sessiontree/core\.(\*Tree)\.Merge' $$tmp/full.wasm || { echo "the full module lacks core.(*Tree).Merge (is the check still right?)"; exit 1; }
	@echo "== the lean module's size against a bare Go program built now, gzipped (js/bench/sizes.js --check: fails past its CEILING; issue 26's target is 1.3x)"
	@$(MAKE) build >/dev/null
	@node js/bench/sizes.js --check

## test-js: the JS API's tests in Node and in headless Chromium, sessiontree/idb's
## and sessiontree/react's in pages of headless Chromium, and tsc on the .d.ts
# The adapters' judges (the pinned `ai` and @assistant-ui/core) bundled for the browser page.
JUDGES := js/test/build/judges.js
$(JUDGES): js/test/judges.entry.js js/test/build-judges.mjs
	@node js/test/build-judges.mjs
test-js: tools build $(HOOKS_WASM) $(JUDGES)
	@echo "== js: node --test"
	@node --test js/test/*.test.js
	@echo "== js: the same tests in headless Chromium"
	@node js/test/browser.mjs js/test/*.test.js
	@echo "== js: the same tests with the full module as the main one (init({ full: true })), node --test and Chromium"
	@SESSIONTREE_FLAVOUR=full node --test js/test/*.test.js
	@SESSIONTREE_FLAVOUR=full node js/test/browser.mjs js/test/*.test.js
	@echo "== js: past 2 GiB and at the 4 GiB limit of module memory (modules with test hooks), lean and full, node --test and Chromium"
	@node --test js/test/memory-limit.mjs
	@node js/test/browser.mjs js/test/memory-limit.mjs
	@SESSIONTREE_FLAVOUR=full node --test js/test/memory-limit.mjs
	@SESSIONTREE_FLAVOUR=full node js/test/browser.mjs js/test/memory-limit.mjs
	@echo "== js: sessiontree/idb (IndexedDB, a worker, two tabs) in headless Chromium"
	@node js/test/idb.mjs
	@echo "== js: sessiontree/idb, two tabs of one conversation at random (seeded): every message in both tabs and the store"
	@node js/test/idb-tabs.mjs
	@IDB_TABS_PRUNE=1 IDB_TABS_SEEDS=9,2 node js/test/idb-tabs.mjs
	@echo "== js: sessiontree/react with React 19 (a page bundled by Vite) in headless Chromium"
	@node js/test/react.mjs
	@echo "== js: tsc --noEmit on sessiontree.d.ts and the packages' .d.ts (the adapters against ai's types)"
	@tsc --noEmit -p js/test/tsconfig.json

## bench-project: t.projectFor with a budget of 32,000 tokens in chats of 100, 20k
## and 200k messages (a chat and an agent session), each flavour, in Node and
## headless Chromium (PROJECT_N=100,20000 for a quick look, PROJECT_CHROMIUM=0 for Node alone)
.PHONY: bench-project
bench-project: tools build
	@node js/bench/project.mjs

## bench-js: the JS API against a plain-JS peer, in Node and headless Chromium, the
## modules' size (gzip, brotli) and time to ready against a bare Go program built in the run,
## and sessiontree/idb's list through 8,000 creates and an import of 2,000 chats beside a second tab
bench-js: tools build
	@node js/bench/run.mjs
	@node js/bench/livepush.mjs
	@node js/bench/storelist.mjs
	@node js/bench/storetabs.mjs

## demo: build the page into web/dist (a folder any static host can serve) and serve it
## on http://127.0.0.1:$(PORT) with application/wasm and gzip (web/serve)
WEB_FILES    := $(wildcard web/*.html web/*.js web/*.css)
D3_HIERARCHY := $(TOOLS)/node_modules/d3-hierarchy/dist/d3-hierarchy.min.mjs
# Markdown in the demo: a CommonMark renderer (raw HTML off), a sanitizer, highlighting (ES modules, pinned in .tools).
MARKDOWN_IT  := $(TOOLS)/node_modules/markdown-it/dist/browser/markdown-it.esm.min.mjs
DOMPURIFY    := $(TOOLS)/node_modules/dompurify/dist/purify.es.mjs
HIGHLIGHT    := $(TOOLS)/node_modules/@highlightjs/cdn-assets/es/highlight.min.js
HIGHLIGHT_CSS := $(TOOLS)/node_modules/@highlightjs/cdn-assets/styles/github.min.css
HIGHLIGHT_DARK_CSS := $(TOOLS)/node_modules/@highlightjs/cdn-assets/styles/github-dark.min.css

demo: web-dist $(WEB_SERVE)
	@echo "== demo: Ctrl-C to stop"
	@$(WEB_SERVE) -dir web/dist -addr 127.0.0.1:$(PORT)

web-dist: build $(WEB_SERVE) $(D3_HIERARCHY) $(MARKDOWN_IT) $(DOMPURIFY) $(HIGHLIGHT)
	@rm -rf web/dist.tmp && mkdir -p web/dist.tmp/vendor
	@cp $(WEB_FILES) js/sessiontree.js js/sessiontree.compile.js js/worker.js js/sessiontree.worker.js js/idb.js js/idb-records.js js/idb.worker.js js/sessiontree.wasm js/sessiontree-interchange.wasm js/wasm_exec.js web/dist.tmp/
	@cp $(D3_HIERARCHY) web/dist.tmp/vendor/d3-hierarchy.mjs
	@cp $(MARKDOWN_IT) web/dist.tmp/vendor/markdown-it.mjs
	@cp $(DOMPURIFY) web/dist.tmp/vendor/purify.mjs
	@cp $(HIGHLIGHT) web/dist.tmp/vendor/highlight.mjs
	@cp $(HIGHLIGHT_CSS) web/dist.tmp/vendor/highlight.css
	@cp $(HIGHLIGHT_DARK_CSS) web/dist.tmp/vendor/highlight-dark.css
	@rm -rf web/dist && mv web/dist.tmp web/dist

$(D3_HIERARCHY) $(MARKDOWN_IT) $(DOMPURIFY) $(HIGHLIGHT):
	@$(TOOLS)/install.sh

$(WEB_SERVE): $(wildcard web/serve/*.go) go.mod
	@$(GO) build -o $@ ./web/serve

## test-web: the static server's tests, then the demo page and the example apps end to end in headless Chromium
test-web: tools web-dist $(WEB_SERVE)
	@echo "== web/serve: go test"
	@$(GO) test -count=1 ./web/serve/
	@echo "== web: end-to-end in headless Chromium"
	@node web/test/e2e.mjs
	@echo "== web: two tabs on one conversation stay in sync (merge), headless Chromium"
	@node web/test/tabsync.mjs
	@echo "== web: the demo used at random in two tabs (seeded clicks, dialogs, sends, reloads): the chat shows the tree, both tabs end with every message"
	@node web/test/monkey.mjs
	@echo "== web: a claude.ai export of 120 chats imported (listed once, the sidebar drawn once and then only its changed rows, the toast counting all of them), headless Chromium"
	@node web/test/exports.mjs
	@echo "== web: a 20,000-message chat (send, switch, reload, two tabs), headless Chromium"
	@node web/test/huge.mjs
	@echo "== web: model endpoints (a local mock of OpenAI chat completions and Anthropic Messages), headless Chromium"
	@node web/test/providers.mjs
	@echo "== web: what a user meets first (Retry, one timeout, models, phone chip, new chat, reasoning and terminal output, branch and delete), headless Chromium"
	@node web/test/firstuse.mjs
	@echo "== web: the example apps (web/examples: assistant-ui, useChat) built with Vite, end to end in headless Chromium, and their numbers against the same apps without sessiontree"
	@node web/test/examples.mjs

## worker: the edge worker (wasm/worker) under wrangler dev, on 127.0.0.1:8787
## (make worker PORT=9000 for another port); D1 data stays in wasm/worker/.wrangler
WORKER_DIR   := wasm/worker
WORKER_PORT  ?= 8787
WORKER_LISTEN = $(if $(filter command line,$(origin PORT)),$(PORT),$(WORKER_PORT))
WORKER_WASM  = GOOS=js GOARCH=wasm $(GO) build -trimpath -ldflags="-s -w"
WRANGLER_ENV := WRANGLER_SEND_METRICS=false

$(WORKER_DIR)/.dev.vars:
	@umask 077; echo "SESSIONTREE_SIGNING_KEY=$$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >$@
	@echo "made $@ with a random SESSIONTREE_SIGNING_KEY"

worker-build: $(WORKER_DIR)/.dev.vars
	@mkdir -p $(WORKER_DIR)/build
	@$(WORKER_WASM) -o $(WORKER_DIR)/build/app.wasm.linked ./$(WORKER_DIR)
	@$(call pack,$(WORKER_DIR)/build/app.wasm)
	@cp "$$($(GO) env GOROOT)/lib/wasm/wasm_exec.js" $(WORKER_DIR)/glue/isolate.mjs $(WORKER_DIR)/glue/fanout.mjs $(WORKER_DIR)/build/

worker: tools worker-build
	@cd $(WORKER_DIR) && $(WRANGLER_ENV) wrangler d1 migrations apply DB --local </dev/null >/dev/null
	@cd $(WORKER_DIR) && $(WRANGLER_ENV) exec wrangler dev --ip 127.0.0.1 --port $(WORKER_LISTEN) --show-interactive-dev-session=false

## vet-worker: safejs's jsguard analyzer over wasm/worker (GOOS=js): a direct
## syscall/js call fails, and only internal/workersjs (the js.Value edge of
## syumai/workers' API) may import syscall/js. jsguard is built from its own
## module (wasm/worker/jsguard: safejs v0.1.0 with x/tools v0.52.0, pinned).
.PHONY: vet-worker
JSGUARD := $(TOOLS)/bin/jsguard
$(JSGUARD): $(WORKER_DIR)/jsguard/main.go $(WORKER_DIR)/jsguard/go.mod $(WORKER_DIR)/jsguard/go.sum
	@mkdir -p $(@D)
	@cd $(WORKER_DIR)/jsguard && GOOS= GOARCH= $(GO) build -o $@ .
vet-worker: $(JSGUARD)
	@echo "== wasm/worker: jsguard (JavaScript only through safejs)"
	@GOOS=js GOARCH=wasm $(JSGUARD) ./$(WORKER_DIR)/...
	@out=$$(grep -rl --include='*.go' '"syscall/js"' $(WORKER_DIR) | grep -vx '$(WORKER_DIR)/internal/workersjs/workersjs.go' || true); \
	  if [ -n "$$out" ]; then echo "syscall/js imported outside $(WORKER_DIR)/internal/workersjs:" $$out; exit 1; fi
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./$(WORKER_DIR) | grep -qx 'net/http'; then \
	  echo "the worker's build imports net/http (its client, TLS and x509 cost ~0.5 MB of the gzipped upload; see wasm/edge/http.go):"; \
	  GOOS=js GOARCH=wasm $(GO) list -deps -f '{{.ImportPath}}: {{join .Imports " "}}' ./$(WORKER_DIR) | grep -E ' net/http( |$$)' | cut -d: -f1; exit 1; fi

## token: make token TENANT=alice prints a bearer token for alice (last line)
token: $(WORKER_DIR)/.dev.vars
	@if [ -z "$(TENANT)" ]; then echo "usage: make token TENANT=alice" >&2; exit 2; fi
	@$(GO) run ./$(WORKER_DIR)/cmd/token -vars $(WORKER_DIR)/.dev.vars -tenant "$(TENANT)"

## worker-upload: what `wrangler deploy --dry-run` would upload, and a failure
## if its gzip is over issue 25's 2 MB (2,000,000 bytes = 1,953.12 KiB)
WORKER_UPLOAD_MAX_KIB := 1953.12
.PHONY: worker-upload
worker-upload: tools worker-build
	@echo "== worker upload size (wrangler deploy --dry-run; issue 25's target: <= 2 MB gzipped)"
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  line=$$(cd $(WORKER_DIR) && $(WRANGLER_ENV) wrangler deploy --dry-run --outdir "$$tmp" </dev/null 2>&1 | grep 'Total Upload'); \
	  echo "$$line"; \
	  gz=$$(echo "$$line" | sed -n 's/.*gzip: *\([0-9.]*\) KiB.*/\1/p'); \
	  if [ -z "$$gz" ]; then echo "no upload size in wrangler's dry run"; exit 1; fi; \
	  awk -v gz="$$gz" -v max=$(WORKER_UPLOAD_MAX_KIB) 'BEGIN { if (gz + 0 > max + 0) { printf "the upload is %s KiB gzipped, over its limit of %s KiB\n", gz, max; exit 1 } }'

## test-worker: native tests of the handler, then the HTTP suite against wrangler dev
## (a free loopback port, a fresh D1 state dir; wrangler is stopped even on failure)
test-worker: tools worker-build worker-upload
	@echo "== worker: go test -race ./wasm/edge, the object storage's pieces, the collector's hold and the packed headers (native: a Handler serves requests concurrently there)"
	@$(GO) test -race -count=1 ./wasm/edge/ ./$(WORKER_DIR)/internal/pieces/ ./$(WORKER_DIR)/internal/collector/ ./$(WORKER_DIR)/internal/jsread/
	@echo "== worker: the glue's fan-out plan (node)"
	@node $(WORKER_DIR)/glue/fanout_test.mjs
	@echo "== worker: its safejs readers, go test (GOOS=js GOARCH=wasm, headless Chromium)"
	@GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout 2m ./$(WORKER_DIR)/internal/jsread/ 2>&1 | (grep -v 'unknown IPAddressSpace' || true)
	@echo "== worker: HTTP suite against wrangler dev"
	@pids=$$(mktemp); trap 'while read -r p; do kill -- -$$p 2>/dev/null || true; done <"$$pids"; rm -f "$$pids"' EXIT; \
	  SESSIONTREE_WORKER_PIDS=$$pids SESSIONTREE_WORKER_DIR=$(CURDIR)/$(WORKER_DIR) \
	  $(GO) test -count=1 -timeout 6m ./$(WORKER_DIR)/httpsuite/

## bench-worker: latency and load of the worker against a trivial Go worker and
## the stock per-request runtime, all under wrangler dev on loopback (~5 minutes:
## the stalls part opens 2,000 sockets at its tenant's 32 upgrades a second)
bench-worker: tools worker-build worker-upload
	@echo "== worker benchmarks (wrangler dev on 127.0.0.1)"
	@rm -rf $(WORKER_DIR)/build-stock $(WORKER_DIR)/build-trivial
	@$(GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_DIR)/build-stock >/dev/null
	@$(WORKER_WASM) -tags stock -o $(WORKER_DIR)/build-stock/app.wasm ./$(WORKER_DIR)
	@mkdir -p $(WORKER_DIR)/build-trivial
	@$(WORKER_WASM) -o $(WORKER_DIR)/build-trivial/app.wasm ./$(WORKER_DIR)/trivial
	@cp $(WORKER_DIR)/build/wasm_exec.js $(WORKER_DIR)/build/isolate.mjs $(WORKER_DIR)/build/fanout.mjs $(WORKER_DIR)/build-trivial/
	@pids=$$(mktemp); trap 'while read -r p; do kill -- -$$p 2>/dev/null || true; done <"$$pids"; rm -f "$$pids"' EXIT; \
	  SESSIONTREE_WORKER_PIDS=$$pids $(GO) run ./$(WORKER_DIR)/cmd/bench -dir $(WORKER_DIR) -duration $(or $(WORKER_LOAD),20s) && \
	  echo "== the stalls again, the worker under Miniflare alone (no wrangler dev proxy in front: -direct)" && \
	  SESSIONTREE_WORKER_PIDS=$$pids $(GO) run ./$(WORKER_DIR)/cmd/bench -dir $(WORKER_DIR) -direct -only stalls -duration $(or $(WORKER_LOAD),20s)
