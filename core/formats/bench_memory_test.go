package formats_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// genClaudeCodeLike writes about size bytes of a Claude Code transcript shaped
// like a real one: every line carries the session fields Claude Code writes
// (cwd, sessionId, version, gitBranch, requestId, usage), assistant turns are
// split in lines sharing message.id, tool results follow tool uses, and text
// lengths vary.
func genClaudeCodeLike(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	const common = `"isSidechain":false,"userType":"external","cwd":"/home/dev/project","sessionId":"0f1e2d3c-4b5a-4697-8877-665544332211","version":"1.0.71","gitBranch":"main",`
	parent := "null"
	n := 0
	next := func() string {
		n++
		return "a0b1c2d3-0000-4000-8000-" + strconv.FormatInt(int64(100000000000+n), 10)
	}
	for turn := 0; b.Len() < size; turn++ {
		words := text[:80+(turn*37)%(len(text)-80)]
		id := next()
		b.WriteString(`{"parentUuid":` + parent + `,` + common + `"type":"user","message":{"role":"user","content":"` + string(words) + `"},"uuid":"` + id + `","timestamp":"2025-07-01T10:00:00.000Z"}` + "\n")
		parent = `"` + id + `"`
		mid := "msg_01" + strconv.Itoa(turn)
		for part := 0; part < 2; part++ {
			id = next()
			content := `{"type":"text","text":"` + string(words) + `"}`
			if part == 1 {
				content = `{"type":"tool_use","id":"toolu_` + strconv.Itoa(turn) + `","name":"Bash","input":{"command":"ls -la","description":"List files"}}`
			}
			b.WriteString(`{"parentUuid":` + parent + `,` + common + `"message":{"id":"` + mid + `","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[` + content + `],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":1203,"cache_read_input_tokens":13512,"output_tokens":3,"service_tier":"standard"}},"requestId":"req_011CRe` + strconv.Itoa(turn) + `","type":"assistant","uuid":"` + id + `","timestamp":"2025-07-01T10:00:01.000Z"}` + "\n")
			parent = `"` + id + `"`
		}
		id = next()
		b.WriteString(`{"parentUuid":` + parent + `,` + common + `"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_` + strconv.Itoa(turn) + `","type":"tool_result","content":"total 8\ndrwxr-xr-x 2 dev dev 4096 .\n` + string(words[:len(words)/2]) + `","is_error":false}]},"uuid":"` + id + `","timestamp":"2025-07-01T10:00:02.000Z","toolUseResult":{"stdout":"total 8","stderr":"","interrupted":false,"isImage":false}}` + "\n")
		parent = `"` + id + `"`
	}
	return b.Bytes()
}

// heapSampler records the largest heap seen while it runs: the bytes in heap
// objects, live and not yet collected.
type heapSampler struct {
	stop    chan struct{}
	done    sync.WaitGroup
	peakObj uint64
}

func readHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			h.peakObj = max(h.peakObj, readHeap())
			select {
			case <-h.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() {
	close(h.stop)
	h.done.Wait()
	h.peakObj = max(h.peakObj, readHeap())
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchMemory imports size bytes of a Claude Code transcript and reports, as
// multiples of the input size, the heap the import adds: "live/input" after
// the import (the tree), "peak/input" the most heap objects seen during it
// (garbage not yet collected included, so it depends on GOGC). From a file
// (fromFile) the input is never held; as bytes the caller holds it, and that
// is not counted (add 1 for the total).
func benchMemory(b *testing.B, size int, fromFile bool) {
	data := genClaudeCodeLike(size)
	path := filepath.Join(b.TempDir(), "session.jsonl")
	if fromFile {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			b.Fatal(err)
		}
	}
	inputLen := len(data)
	if fromFile {
		data = nil
	}
	b.SetBytes(int64(inputLen))
	var live, peak float64
	for i := 0; i < b.N; i++ {
		base := liveHeap()
		h := startSampler()
		var tr *core.Tree
		var err error
		if fromFile {
			f, ferr := os.Open(path)
			if ferr != nil {
				b.Fatal(ferr)
			}
			tr, _, err = formats.ImportReader(formats.ClaudeCode, f)
			f.Close()
		} else {
			tr, _, err = formats.Import(formats.ClaudeCode, data)
		}
		h.finish()
		if err != nil {
			b.Fatal(err)
		}
		after := liveHeap()
		runtime.KeepAlive(tr)
		in := float64(inputLen)
		live = float64(after-min(after, base)) / in
		peak = float64(h.peakObj-min(h.peakObj, base)) / in
	}
	runtime.KeepAlive(data)
	b.ReportMetric(live, "live/input")
	b.ReportMetric(peak, "peak/input")
}

// BenchmarkImportClaudeCode100MB imports a generated 100 MB Claude Code
// transcript streamed from a file and from bytes in memory, reporting memory
// relative to the input size (see benchMemory).
func BenchmarkImportClaudeCode100MB(b *testing.B) {
	b.Run("file", func(b *testing.B) { benchMemory(b, 100<<20, true) })
	b.Run("bytes", func(b *testing.B) { benchMemory(b, 100<<20, false) })
}
