#!/usr/bin/env bash
# Installs sessiontree's pinned dev/test tools. Idempotent and quiet: prints nothing
# unless something fails (then the failing step's log). Runs from any directory.
#
#   - Debian's Chromium at /usr/bin/chromium                     (chromium.sh)
#   - bin/wasmbrowsertest and bin/go_js_wasm_exec -> it          (go.mod/go.sum here)
#   - node_modules/: typescript, playwright-core, wrangler, d3-hierarchy, the demo's Markdown
#     libraries, and the openai and @anthropic-ai/sdk request types that judge the
#     demo's request bodies (web/test/schema.mjs); React 19, assistant-ui, the AI SDK
#     (ai, @ai-sdk/react), zod and Vite for the framework adapters, their judges and the
#     example apps, and pi's own SessionManager (@mariozechner/pi-coding-agent, pinned;
#     make bench-peers runs it, never the project) (package-lock.json)
#
# Afterwards, run wasm tests in headless Chromium with
#   PATH="<repo>/.tools/bin:$PATH" GOOS=js GOARCH=wasm go test ./...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
here=$PWD

mkdir -p bin
# Serialise concurrent runs (e.g. make -j) on one lock file.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$here/bin/.install.lock"
  flock 9
fi

log="$(mktemp "${TMPDIR:-/tmp}/sessiontree-tools.XXXXXX")"
trap 'rm -f "$log"' EXIT
fail() { echo "install.sh: $1 failed:" >&2; cat "$log" >&2; exit 1; }

# 1. Chromium (Debian's package).
./chromium.sh

# 2. wasmbrowsertest, built for the host from this module at its pinned versions.
#    Rebuilt when go.mod, go.sum or the Go version change (content stamp).
go_key="$( { cat go.mod go.sum; env -u GOOS -u GOARCH go version; } | sha256sum | cut -d' ' -f1)"
if [ ! -x bin/wasmbrowsertest ] || [ ! -e bin/go_js_wasm_exec ] \
   || [ "$(cat go-tools.stamp 2>/dev/null || true)" != "$go_key" ]; then
  rm -f go-tools.stamp
  env -u GOOS -u GOARCH -u GOARM -u GOAMD64 -u CC -u CGO_CFLAGS \
      GOWORK=off GOFLAGS=-mod=readonly GOTOOLCHAIN=local CGO_ENABLED=0 \
      go build -o bin/wasmbrowsertest github.com/agnivade/wasmbrowsertest \
      >"$log" 2>&1 || fail "go build of wasmbrowsertest"
  # go test/go run look for go_$GOOS_$GOARCH_exec on PATH for cross-compiled binaries.
  ln -sfn wasmbrowsertest bin/go_js_wasm_exec
  echo "$go_key" >go-tools.stamp
fi

# 3. Node dev tools, exactly as locked. Reinstalled when node_modules is missing or the
#    lock file (or Node's version) changed since the last install (content stamp).
node_key="$( { cat package-lock.json; node --version; } | sha256sum | cut -d' ' -f1)"
if [ ! -f node_modules/.package-lock.json ] || [ ! -d node_modules/playwright-core ] \
   || [ "$(cat node-modules.stamp 2>/dev/null || true)" != "$node_key" ]; then
  rm -f node-modules.stamp
  npm ci --include=dev --no-audit --no-fund --loglevel=error --no-update-notifier \
      >"$log" 2>&1 || fail "npm ci in .tools"
  echo "$node_key" >node-modules.stamp
fi
