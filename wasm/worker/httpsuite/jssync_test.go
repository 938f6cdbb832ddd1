//go:build !js

package httpsuite

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// jsPackage builds the JS package (sessiontree.js, sync.js, both WebAssembly
// modules and wasm_exec.js) into a temporary directory, as make build does,
// so that this suite does not depend on make build having run first.
func jsPackage(t *testing.T, repo string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range []struct{ out, pkg string }{
		{"sessiontree.wasm", "./wasm/module"},
		{"sessiontree-interchange.wasm", "./wasm/interchange"},
	} {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, m.out), m.pkg)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", m.pkg, err, out)
		}
	}
	for _, f := range []string{
		filepath.Join(repo, "js", "sessiontree.js"),
		filepath.Join(repo, "js", "sync.js"),
		filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"),
	} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runScript runs js/test/<script> with node (WebSocket on, as Node 22 has it)
// against the worker at url with a token of tenant, on the JS package built
// now (jsPackage), and fails t with the script's output if it fails.
func runScript(t *testing.T, script, url, tenant string, args ...string) {
	t.Helper()
	repo, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := jsPackage(t, repo)
	argv := append([]string{"--experimental-websocket", "--no-warnings", filepath.Join(repo, "js", "test", script), dir, url, token(t, tenant)}, args...)
	out, err := exec.Command("node", argv...).CombinedOutput()
	if err != nil {
		t.Fatalf("js/test/%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}

// A tree too large for one request (past the 8 MiB body limit) is pushed by
// sync() and live() in parts, and the worker holds it whole: see
// js/test/sync-parts-worker.mjs. Before, it was refused on every push.
func TestJSSyncPushesATreeTooLargeForOneRequestInParts(t *testing.T) {
	runScript(t, "sync-parts-worker.mjs", server.URL, "js-sync-parts")
}

// The sync client of js/sync.js (pull, merge through the interchange module,
// push with If-Match, again on 412) against this worker: see
// js/test/sync-worker.mjs.
func TestTwoJSSyncClientsPushingConcurrentlyConvergeThroughTheWorker(t *testing.T) {
	runScript(t, "sync-worker.mjs", server.URL, "js-sync-tenant")
}

// live() of js/sync.js: a change pushed by one device is held by the other,
// told by its WebSocket, within 200 ms p95: see js/test/live-worker.mjs.
func TestJSLiveSyncBringsAChangeToTheOtherDevice(t *testing.T) {
	runScript(t, "live-worker.mjs", server.URL, "js-live-tenant")
}

// live() with deltas: each push sends only the rows changed since the last
// one (POST /delta, on the live socket), and the devices and the stored tree
// converge as with whole pushes.
func TestJSLiveSyncPushesOnlyTheChangedRows(t *testing.T) {
	runScript(t, "live-worker.mjs", server.URL, "js-live-deltas", "deltas")
}

// live() with deltas on a tree at the worker's size limit (the limited
// worker: SESSIONTREE_MAX_TREE_BYTES 3 MiB): the refused push is too_large,
// and no push of the whole tree follows it: see js/test/live-full-worker.mjs.
func TestJSLiveSyncStopsAtTheTreesSizeLimit(t *testing.T) {
	runScript(t, "live-full-worker.mjs", limitedServer(t).URL, "js-live-full")
}

// live() with deltas at random over a network that fails at random (requests
// never sent, answers lost after the worker acted, sockets dropped): once it
// heals, both devices and the stored tree hold every message either device
// wrote: see js/test/live-random.mjs.
func TestJSLiveSyncOverAFailingNetworkLosesNothing(t *testing.T) {
	runScript(t, "live-random.mjs", server.URL, "js-live-random")
}
