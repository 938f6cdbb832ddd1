package fullcalls

import (
	"encoding/binary"
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
)

// fields splits importAll's result: a count, then per conversation three
// length-prefixed fields.
func fields(t *testing.T, res []byte) [][3][]byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(res))
	res = res[4:]
	var out [][3][]byte
	for i := 0; i < n; i++ {
		var c [3][]byte
		for j := range c {
			l := int(binary.LittleEndian.Uint32(res))
			c[j], res = res[4:4+l], res[4+l:]
		}
		out = append(out, c)
	}
	if len(res) != 0 {
		t.Fatalf("%d bytes left over", len(res))
	}
	return out
}

// importAll gives each conversation of a conversations.json its title, its
// report and its tree; importAllTrees gives live trees' handles instead.
func TestImportAllFramesEachConversation(t *testing.T) {
	file := `[{"id":"a","title":"One","current_node":"a1","mapping":{"a1":{"id":"a1","message":{"id":"a1","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}},"parent":null,"children":[]}}},` +
		`{"id":"b","title":"Two","current_node":"b1","mapping":{"b1":{"id":"b1","message":{"id":"b1","author":{"role":"user"},"content":{"content_type":"text","parts":["yo"]}},"parent":null,"children":[]}}}]`
	res, ok := do("importAll", []byte("auto"), []byte(file))
	if !ok {
		t.Fatalf("importAll failed: %s", res)
	}
	convs := fields(t, res)
	if len(convs) != 2 || string(convs[0][0]) != "One" || string(convs[1][0]) != "Two" {
		t.Fatalf("%q", convs)
	}
	var rep struct{ Format string }
	if err := json.Unmarshal(convs[1][1], &rep); err != nil || rep.Format != "chatgpt" {
		t.Fatalf("report %s: %v", convs[1][1], err)
	}
	tr, err := core.Unmarshal(convs[1][2])
	if err != nil || tr.Root() != "b1" {
		t.Fatalf("tree %s: %v", convs[1][2], err)
	}
	res, ok = do("importAllTrees", []byte("chatgpt"), []byte(file))
	if !ok || len(fields(t, res)) != 2 {
		t.Fatalf("importAllTrees: %s", res)
	}
	if res, ok := do("importAll", []byte("auto"), []byte(`{"version":4,"history":[]}`)); ok {
		t.Fatalf("a Chatbot UI export imported: %s", res)
	}
}

// A large call holds the module's collector (bridge.Reserve), so importAll
// collects the garbage of each conversation it reads as it goes: before, an
// export's heap grew by all it allocated, 18-21 times the file for a spaced
// claude.ai or ChatGPT export (a 345 MB ChatGPT export went past wasm32's
// 4 GiB and the module died). Counted here as the heap the runtime took,
// with the collector off as the held call has it: 21.4 times this file
// before, 5.0 since.
func TestImportAllOfAWholeExportCollectsAsItGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 12 MB export")
	}
	type msg struct {
		UUID    string `json:"uuid"`
		Text    string `json:"text"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Sender string `json:"sender"`
		Parent string `json:"parent_message_uuid"`
	}
	type conv struct {
		UUID     string `json:"uuid"`
		Name     string `json:"name"`
		Messages []msg  `json:"chat_messages"`
	}
	convs := make([]conv, 600)
	for c := range convs {
		convs[c] = conv{UUID: "c" + strconv.Itoa(c), Name: "Chat " + strconv.Itoa(c)}
		parent := "00000000-0000-4000-8000-000000000000"
		for k := 0; k < 20; k++ {
			m := msg{UUID: "m" + strconv.Itoa(c) + "-" + strconv.Itoa(k), Text: strings.Repeat("words of a message ", 40), Sender: []string{"human", "assistant"}[k%2], Parent: parent}
			m.Content = append(m.Content, struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"text", m.Text})
			convs[c].Messages = append(convs[c].Messages, m)
			parent = m.UUID
		}
	}
	file, err := json.MarshalIndent(convs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	m := number("importAll")
	in := binary.LittleEndian.AppendUint32(nil, 8)
	in = append(in, "claudeai"...)
	in = binary.LittleEndian.AppendUint32(in, uint32(len(file)))
	in = append(in, file...)
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	buf := bridge.Reserve(len(in))
	copy(buf, in)
	res, ok := bridge.Do(uint32(m), 0, buf[:len(in)], 1000)
	runtime.ReadMemStats(&after)
	if !ok || len(fields(t, res)) != len(convs) {
		t.Fatalf("importAll failed: %.200s", res)
	}
	// The garbage let pile up between two collections (importCollect, 64 MB) aside.
	grew := (float64(int64(after.HeapSys)-int64(before.HeapSys)) - 64<<20) / float64(len(file))
	t.Logf("file %d MB: the heap grew %.1f times it beyond importCollect (%d collections)", len(file)>>20, grew, after.NumGC-before.NumGC)
	if grew > 6 {
		t.Fatalf("importing a %d MB export grew the heap %.1f times the file beyond importCollect (its input, its conversations' copies, the result: at most 6)", len(file)>>20, grew)
	}
}
