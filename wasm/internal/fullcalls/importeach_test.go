package fullcalls

import (
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// files is what each import under way has still to write, by number.
var files = map[string][]byte{}

// beginImport starts an import of file as JavaScript does: importBegin, then
// the file written into the buffer it made a piece at a time, as importNext
// asks for them (nextConversation).
func beginImport(t *testing.T, file, kind string) string {
	t.Helper()
	res, ok := do("importBegin", []byte("auto"), []byte(strconv.Itoa(len(file))), []byte(kind))
	if !ok {
		t.Fatalf("importBegin: %s", res)
	}
	f := strings.Fields(string(res))
	if len(f) != 3 {
		t.Fatalf("importBegin answered %q", res)
	}
	files[f[0]] = []byte(file)
	return f[0]
}

// next is importNext's answer after any pieces it asked for.
func next(t *testing.T, num string) ([]byte, bool) {
	t.Helper()
	res, ok := do("importNext", []byte(num), []byte("0"))
	for ok && string(res) == "\x04\x00\x00\x00more" {
		n, _ := strconv.Atoi(num)
		im := imports[uint32(n)]
		k := copy(im.buf, files[num])
		files[num] = files[num][k:]
		res, ok = do("importNext", []byte(num), []byte(strconv.Itoa(k)))
	}
	return res, ok
}

// nextConversation is importNext's conversation: title, report, tree.
func nextConversation(t *testing.T, num string) ([3][]byte, bool) {
	t.Helper()
	res, ok := next(t, num)
	if !ok {
		t.Fatalf("importNext: %s", res)
	}
	if len(res) == 0 {
		return [3][]byte{}, false
	}
	var c [3][]byte
	for j := range c {
		l := int(binary.LittleEndian.Uint32(res))
		c[j], res = append([]byte(nil), res[4:4+l]...), res[4+l:]
	}
	if len(res) != 0 {
		t.Fatalf("%d bytes left over", len(res))
	}
	return c, true
}

func chatgptExport(n int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < n; i++ {
		id := "c" + strconv.Itoa(i)
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id":"` + id + `","title":"Chat ` + strconv.Itoa(i) + `","current_node":"` + id + `m","mapping":{"` + id + `m":{"id":"` + id +
			`m","message":{"id":"` + id + `m","author":{"role":"user"},"content":{"content_type":"text","parts":["hi ` + strconv.Itoa(i) + `"]}},"parent":null,"children":[]}}}`)
	}
	b.WriteString("]")
	return b.String()
}

// importNext hands out the conversations of a file one a call, each as
// importAll frames it, and nothing once they are all read: the import is then
// over. The module holds one conversation at a time (the goroutine reading
// the file is parked between calls), and other calls run in between.
func TestImportNextGivesOneConversationACall(t *testing.T) {
	file := chatgptExport(3)
	for _, kind := range []string{"files", "trees"} {
		num := beginImport(t, file, kind)
		for i := 0; i < 3; i++ {
			c, ok := nextConversation(t, num)
			if !ok || string(c[0]) != "Chat "+strconv.Itoa(i) || !strings.Contains(string(c[1]), `"format":"chatgpt"`) {
				t.Fatalf("%s: conversation %d: %q", kind, i, c)
			}
			var tr *core.Tree
			if kind == "files" {
				var err error
				if tr, err = core.Unmarshal(c[2]); err != nil {
					t.Fatalf("%s: tree %d: %v", kind, i, err)
				}
			} else {
				h, _ := strconv.Atoi(string(c[2]))
				tr, _ = treecalls.TreeOf(uint32(h))
			}
			if tr == nil || tr.Root() != "c"+strconv.Itoa(i)+"m" {
				t.Fatalf("%s: tree %d is not conversation %d's", kind, i, i)
			}
			if bridge.Pending() != 1 {
				t.Fatalf("%s: %d calls parked between conversations, want the import's 1", kind, bridge.Pending())
			}
			// Another call between two conversations.
			if res, ok := do("import", []byte("auto"), []byte(chatgptExport(1))); !ok {
				t.Fatalf("an import between two conversations: %s", res)
			}
		}
		if _, ok := nextConversation(t, num); ok {
			t.Fatalf("%s: a fourth conversation of three", kind)
		}
		if len(imports) != 0 || bridge.Pending() != 0 {
			t.Fatalf("%s: the import is not over after its last conversation: %d imports, %d parked", kind, len(imports), bridge.Pending())
		}
		if res, ok := do("importNext", []byte(num)); ok || !strings.Contains(string(res), "no import numbered") {
			t.Fatalf("%s: importNext after the end: %s", kind, res)
		}
	}
}

// An import given up half-way (importEnd) leaves nothing parked and no buffer
// held; a file that cannot be read fails at the first importNext, which ends
// the import; bad arguments are refused with a sentence.
func TestImportEndAndFailures(t *testing.T) {
	num := beginImport(t, chatgptExport(5), "files")
	if _, ok := nextConversation(t, num); !ok {
		t.Fatal("no first conversation")
	}
	if res, ok := do("importEnd", []byte(num)); !ok {
		t.Fatalf("importEnd: %s", res)
	}
	if len(imports) != 0 || bridge.Pending() != 0 {
		t.Fatalf("given up: %d imports, %d parked", len(imports), bridge.Pending())
	}
	if res, ok := do("importEnd", []byte(num)); !ok {
		t.Fatalf("importEnd of an import over already: %s", res)
	}
	num = beginImport(t, `{"version":4,"history":[]}`, "files")
	if res, ok := next(t, num); ok || !strings.Contains(string(res), "invalid_input") {
		t.Fatalf("a file of no format: %s", res)
	}
	if len(imports) != 0 || bridge.Pending() != 0 {
		t.Fatalf("failed: %d imports, %d parked", len(imports), bridge.Pending())
	}
	for _, args := range [][][]byte{
		{[]byte("auto"), []byte("-1"), []byte("files")},
		{[]byte("auto"), []byte("12"), []byte("both")},
		{[]byte("auto"), []byte(strconv.Itoa(treecalls.MaxLoad + 1)), []byte("files")},
	} {
		if res, ok := do("importBegin", args...); ok {
			t.Fatalf("importBegin %q: %s", args, res)
		}
	}
	if len(imports) != 0 {
		t.Fatalf("a refused importBegin kept an import")
	}
}

// The module holds a conversation and a piece of the file, not the file:
// stepping through an 18 MB export a conversation at a time grows the heap
// by the garbage let pile up between two collections (importCollect) and
// less than half the file beyond it. When the file was copied in whole, it
// grew by the file and more (4.2 times the file more before the first
// conversation's step, which looked over the whole file, was followed by a
// collection); importAll also holds the result, every conversation's
// .tree.json, which JavaScript then loaded as trees all at once.
func TestImportNextHoldsAConversationNotTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB export")
	}
	var b strings.Builder
	b.WriteString("[\n")
	for c := 0; c < 600; c++ {
		if c > 0 {
			b.WriteString(",\n")
		}
		b.WriteString(`  {"uuid": "c` + strconv.Itoa(c) + `", "name": "Chat ` + strconv.Itoa(c) + `", "chat_messages": [`)
		parent := "00000000-0000-4000-8000-000000000000"
		for k := 0; k < 20; k++ {
			id := "m" + strconv.Itoa(c) + "-" + strconv.Itoa(k)
			if k > 0 {
				b.WriteString(",")
			}
			text := strings.Repeat("words of a message ", 40)
			b.WriteString("\n    {\"uuid\": \"" + id + "\", \"text\": \"" + text + "\", \"content\": [{\"type\": \"text\", \"text\": \"" + text +
				"\"}], \"sender\": \"" + []string{"human", "assistant"}[k%2] + "\", \"parent_message_uuid\": \"" + parent + "\"}")
			parent = id
		}
		b.WriteString("\n  ]}")
	}
	b.WriteString("\n]")
	file := b.String()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// The heap in use, garbage included (the collector off, as a call
	// holding it has it), at its highest after each conversation.
	var before, now runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	num := beginImport(t, file, "files")
	n, peak := 0, uint64(0)
	for {
		c, ok := nextConversation(t, num)
		if !ok {
			break
		}
		if n++; string(c[0]) != "Chat "+strconv.Itoa(n-1) {
			t.Fatalf("conversation %d is %q", n-1, c[0])
		}
		runtime.ReadMemStats(&now)
		peak = max(peak, now.HeapAlloc)
	}
	if n != 600 {
		t.Fatalf("%d conversations of 600", n)
	}
	grew := (float64(int64(peak)-int64(before.HeapAlloc)) - 64<<20) / float64(len(file))
	t.Logf("file %d MB: the heap grew %.2f times it beyond importCollect", len(file)>>20, grew)
	if grew > 0.5 {
		t.Fatalf("a %d MB export read a conversation a call grew the heap %.1f times the file beyond importCollect (a piece, one conversation: at most 0.5)", len(file)>>20, grew)
	}
}
