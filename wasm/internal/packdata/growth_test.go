//go:build !(js && wasm)

// The tests of ChunkGrowth run node and go: natively only (make test runs
// them with -race in test-core; test-wasm runs this package in a browser).

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// node runs script (CommonJS) with node and returns what it printed; the
// test is skipped where there is no node (make test installs nothing else
// for it: Node is on every machine the project builds on).
func node(t *testing.T, script string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH")
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "run.cjs")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, append([]string{f}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// growModule is a module of one memory (min pages, max pages), the break
// global and chunkedGrow, exported as "grow" and "mem".
func growModule(min, max uint64) []byte {
	return wasmModule(
		section{id: 1, body: []byte{1, 0x60, 1, 0x7f, 1, 0x7f}},                              // (i32) -> i32
		section{id: 3, body: []byte{1, 0}},                                                   // one function of it
		section{id: 5, body: appendUint(appendUint([]byte{1, 1}, min), max)},                 // memory: min, max
		section{id: 6, body: []byte{1, 0x7f, 1, 0x41, 0, 0x0b}},                              // the break: mut i32 = 0
		section{id: 7, body: []byte{2, 4, 'g', 'r', 'o', 'w', 0, 0, 3, 'm', 'e', 'm', 2, 0}}, // exports
		section{id: 10, body: oneBody(chunkedGrow(0))},
	)
}

// wasmModule is a module of the sections given (their ids and bodies), in
// that order.
func wasmModule(secs ...section) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range secs {
		m = append(m, s.id)
		m = appendUint(m, uint64(len(s.body)))
		m = append(m, s.body...)
	}
	return m
}

// oneBody is the body of a code section of one function, fn.
func oneBody(fn []byte) []byte {
	return append(appendUint([]byte{1}, uint64(len(fn))), fn...)
}

// The chunked grow, called as runtime.sbrk calls growMemory: each answer is
// the runtime's old break, the memory grows by an eighth of its size (at
// most MaxChunkPages) or the ask when that is more, an ask within what was
// grown ahead grows nothing, and when a chunk cannot be had the exact ask is
// tried before -1.
func TestChunkedGrow(t *testing.T) {
	f := filepath.Join(t.TempDir(), "grow.wasm")
	if err := os.WriteFile(f, growModule(16, 22), 0o644); err != nil {
		t.Fatal(err)
	}
	got := node(t, `
const instance = new WebAssembly.Instance(new WebAssembly.Module(require("fs").readFileSync(process.argv[2])), {});
const { grow, mem } = instance.exports;
const out = [];
for (const ask of [1, 1, 1, 2, 1, 1]) out.push(grow(ask) + ":" + mem.buffer.byteLength / 65536);
console.log(out.join(" "));
`, f)
	// size 16: ask 1 → 16 + 2 (16/8); the next ask fits; then 18 + 2; then
	// 20 + 2 (max 22); then a chunk of 2 past the max: the exact 1 is tried
	// (22 is the max: -1, nothing changed).
	want := "16:18 17:18 18:20 19:22 21:22 -1:22"
	if got != want {
		t.Fatalf("grow answers %q, want %q", got, want)
	}
	big := growModule(1024, 4096)
	if err := os.WriteFile(f, big, 0o644); err != nil {
		t.Fatal(err)
	}
	got = node(t, `
const instance = new WebAssembly.Instance(new WebAssembly.Module(require("fs").readFileSync(process.argv[2])), {});
const { grow, mem } = instance.exports;
console.log([grow(8), mem.buffer.byteLength / 65536, grow(100), mem.buffer.byteLength / 65536].join(" "));
`, f)
	// 1024 pages: a chunk is MaxChunkPages, not 128; an ask of 100 past the
	// break grows by the ask.
	if want := "1024 " + strconv.Itoa(1024+MaxChunkPages) + " 1032 1132"; got != want {
		t.Fatalf("grow answers %q, want %q", got, want)
	}
}

// A Go program rewritten by ChunkGrowth, in Node: what it allocates is
// sound (each slice keeps what was written into it while the heap grows past
// 40 MB), the memory changed size at most half as often as the program's own
// build without the rewrite, and ends at most MaxChunkPages past it.
func TestChunkGrowthGoProgram(t *testing.T) {
	dir := t.TempDir()
	src := `package main

func main() {
	var keep [][]byte
	for i := range 640 {
		b := make([]byte, 64<<10)
		for j := range b {
			b[j] = byte(i + j)
		}
		keep = append(keep, b)
	}
	for i, b := range keep {
		for j := range b {
			if b[j] != byte(i+j) {
				println("corrupt", i, j)
				return
			}
		}
	}
	println("sound", len(keep))
}
`
	for name, text := range map[string]string{"main.go": src, "go.mod": "module grow\n\ngo 1.26\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plain := filepath.Join(dir, "plain.wasm")
	build := exec.Command("go", "build", "-o", plain, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	in, err := os.ReadFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ChunkGrowth(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ChunkGrowth(out); err == nil {
		t.Fatal("a rewritten module rewritten again: no error")
	}
	chunked := filepath.Join(dir, "chunked.wasm")
	if err := os.WriteFile(chunked, out, 0o644); err != nil {
		t.Fatal(err)
	}
	// Each run prints the program's line, then the memory's changes of size
	// and its pages at the end.
	run := func(f string) (line string, grows, pages int) {
		got := node(t, `
globalThis.require = require;
globalThis.fs = require("fs");
require(process.argv[2]);
const go = new Go();
let printed = "";
const write = fs.writeSync;
fs.writeSync = (fd, b) => { printed += new TextDecoder().decode(b); return b.length; };
let instance, last = null, grows = 0;
const reset = go.importObject.gojs["runtime.resetMemoryDataView"];
go.importObject.gojs["runtime.resetMemoryDataView"] = (sp) => {
  reset(sp);
  if (instance.exports.mem.buffer !== last) { grows++; last = instance.exports.mem.buffer; }
};
instance = new WebAssembly.Instance(new WebAssembly.Module(fs.readFileSync(process.argv[3])), go.importObject);
go.run(instance).then(() => {
  fs.writeSync = write;
  console.log(printed.trim() + "|" + grows + "|" + instance.exports.mem.buffer.byteLength / 65536);
});
`, filepath.Join(runtime.GOROOT(), "lib", "wasm", "wasm_exec.js"), f)
		parts := strings.Split(got, "|")
		if len(parts) != 3 {
			t.Fatalf("node printed %q", got)
		}
		grows, _ = strconv.Atoi(parts[1])
		pages, _ = strconv.Atoi(parts[2])
		return parts[0], grows, pages
	}
	line0, grows0, pages0 := run(plain)
	line1, grows1, pages1 := run(chunked)
	t.Logf("plain: %d changes of size, %d pages; chunked: %d, %d pages", grows0, pages0, grows1, pages1)
	if line0 != "sound 640" || line1 != "sound 640" {
		t.Fatalf("the programs printed %q and %q, want %q", line0, line1, "sound 640")
	}
	if grows1*2 > grows0 {
		t.Fatalf("the memory changed size %d times rewritten, %d times as built: want at most half", grows1, grows0)
	}
	if pages1 < pages0 || pages1 > pages0+MaxChunkPages {
		t.Fatalf("the rewritten program ends with %d pages, the plain one %d: want at most %d more", pages1, pages0, MaxChunkPages)
	}
}

// Modules ChunkGrowth does not expect are refused with an error, never a
// panic: cut anywhere, or with any one byte changed, a module that has the
// body it looks for.
func TestChunkGrowthRefusesWhatItDoesNotExpect(t *testing.T) {
	m := wasmModule(
		section{id: 1, body: []byte{2, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f}}, // () -> (), (i32) -> i32
		section{id: 2, body: []byte{1, 1, 'g', 1, 'f', 0, 0}},               // a function imported
		section{id: 3, body: []byte{1, 1}},
		section{id: 6, body: []byte{1, 0x7f, 1, 0x41, 0, 0x0b}},
		section{id: 10, body: oneBody(goGrowMemory)},
	)
	if _, err := ChunkGrowth(m); err != nil {
		t.Fatalf("the whole module: %v", err)
	}
	for i := 8; i < len(m); i++ {
		ChunkGrowth(m[:i])
		for _, b := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
			c := append([]byte(nil), m...)
			c[i] = b
			ChunkGrowth(c)
		}
	}
	if _, err := ChunkGrowth(m[:len(m)-1]); err == nil {
		t.Fatal("a module cut short: no error")
	}
}
