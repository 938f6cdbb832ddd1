package formats_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// ofCount is what a conversation's problem says of the count, which
// ImportEachFrom does not know when it reads a list a conversation at a time.
var ofCount = regexp.MustCompile(`^(conversation [0-9]+) of [0-9]+: `)

// eachOf is what formats.ImportEach or ImportEachFrom hands over for data,
// one line a conversation, then the error.
func eachOf(t *testing.T, data []byte, piece int, format string) string {
	t.Helper()
	return eachIn(t, data, func(int) int { return piece }, format)
}

// eachIn is eachOf reading data in pieces of the lengths piece gives (0:
// the whole file, by formats.ImportEach), the argument being what was
// read before.
func eachIn(t *testing.T, data []byte, piece func(read int) int, format string) string {
	t.Helper()
	var b strings.Builder
	fn := func(cv formats.Conversation, size int) {
		rep := cv.Report
		for i, p := range rep.Problems {
			rep.Problems[i].Message = ofCount.ReplaceAllString(p.Message, "$1: ")
		}
		fmt.Fprintf(&b, "%q %d %s %+v\n", cv.Title, size, cv.Tree.Marshal(), rep)
	}
	var err error
	if piece(0) == 0 {
		err = formats.ImportEach(data, format, fn)
	} else {
		rest := data
		err = formats.ImportEachFrom(len(data), func() []byte {
			n := min(piece(len(data)-len(rest)), len(rest))
			p := append([]byte(nil), rest[:n]...) // what the caller writes over next time
			rest = rest[n:]
			return p
		}, format, fn)
	}
	fmt.Fprintf(&b, "error: %v", err)
	return b.String()
}

// A list of conversations read a piece at a time gives what ImportEach gives
// of the whole file: the same conversations, reports, sizes and errors, for a
// file cut at any byte, broken, spaced, with a byte-order mark, one
// conversation alone, or of another format (read whole), in pieces of any
// size. Only a problem's "of N" goes: the count is not known before the end.
func TestImportEachFromGivesWhatImportEachGivesOfTheWholeFile(t *testing.T) {
	defer formats.SetWholeUnder(0)()
	conv := func(i int) string {
		n := strconv.Itoa(i)
		return `{"title":"Chat ` + n + `","mapping":{"a` + n + `":{"id":"a` + n + `","message":{"id":"a` + n + `","author":{"role":"user"},"content":{"content_type":"text","parts":["hi ` + n + ` \u00e9"]}},"parent":null,"children":[]}},"current_node":"a` + n + `"}`
	}
	list := "[" + conv(0) + ", " + conv(1) + ",\n " + conv(2) + "]"
	inputs := map[string]string{
		"list":                  list,
		"spaced":                "\ufeff \n" + strings.ReplaceAll(list, `":`, `": `) + "\n\n",
		"one":                   "[" + conv(7) + "]",
		"one then more":         "[" + conv(7) + "] x",
		"no comma":              "[" + conv(0) + " " + conv(1) + "]",
		"after the list":        list + ` {"x":1}`,
		"a number":              "[" + conv(0) + ", 12345678, " + conv(1) + "]",
		"not a chat":            "[" + conv(0) + `, {"title":"t"}, null]`,
		"empty":                 "[]",
		"a literal cut":         "[" + conv(0) + ", nul",
		"a broken string":       "[" + conv(0) + `, {"title":"a` + "\x01" + `"}]`,
		"with a branch key":     "[" + strings.Replace(conv(0), `{"title"`, `{"sessiontree":{"branches":{}},"title"`, 1) + "," + conv(1) + "]",
		"one with a branch key": "[" + strings.Replace(conv(0), `{"title"`, `{"sessiontree":{"branches":{}},"title"`, 1) + "] ",
	}
	for cut := len(conv(0)) + 1; cut < len(list); cut += 7 {
		inputs["cut at "+strconv.Itoa(cut)] = list[:cut]
	}
	// An escape pair (what Python's json.dump writes for an emoji) cut by a
	// piece: its scan fails 12 bytes before the piece's end.
	emoji := strings.ReplaceAll(list, `\u00e9`, `\ud83d\ude00`)
	inputs["emoji escapes"] = emoji
	inputs["emoji escapes, cut"] = emoji[:len(emoji)-40]
	// A pretty-printed file cut in its spaces: the offset of the error is
	// where the file's last non-space byte ends, as ImportEach trims it.
	inputs["cut in spaces"] = "[" + conv(0) + ",\n  {\n    "
	inputs["cut in spaces after a comma"] = "[" + conv(0) + ",\n   \t\r\n"
	// A NUL byte after the list is data, not the end.
	inputs["one then a NUL"] = "[" + strings.Replace(conv(0), `{"title"`, `{"sessiontree":{"branches":{}},"title"`, 1) + "]\x00"
	inputs["a list then a NUL"] = list + "\x00 "
	// A piece that ends at every byte of the second conversation: each cut
	// of an escape pair, a character, a literal or a number met once.
	for _, in := range []string{emoji, "[" + conv(0) + `, null, true, 12.5e3, "\u00e9\ud83d\ude00 café", ` + conv(1) + "]"} {
		data := []byte(in)
		want := eachOf(t, data, 0, formats.Auto)
		for k := len(conv(0)); k < len(data); k++ {
			if got := eachIn(t, data, func(read int) int {
				if read < k {
					return k - read
				}
				return len(data)
			}, formats.Auto); got != want {
				t.Fatalf("a piece ending at %d (%q):\n got %s\nwant %s", k, data[max(0, k-16):k], got, want)
			}
		}
	}
	for _, dir := range []string{"chatgpt", "claudeai", "openwebui", "pi", "claudecode", "librechat"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs[f] = string(data)
		}
	}
	for name, in := range inputs {
		data := []byte(in)
		for _, format := range []string{formats.Auto, formats.ChatGPT} {
			want := eachOf(t, data, 0, format)
			for _, piece := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 19, 23, 29, 31, 64, 1000, len(data) + 1} {
				if got := eachOf(t, data, piece, format); got != want {
					t.Errorf("%s (%s) in pieces of %d:\n got %s\nwant %s", name, format, piece, got, want)
					break
				}
			}
		}
	}
}

// A large list read a piece at a time holds the conversation at hand and
// the pieces past it, never the file: measured as the live heap after a
// collection at each conversation, against the file's size.
func TestImportEachFromHoldsAConversationNotTheFile(t *testing.T) {
	defer formats.SetWholeUnder(1 << 20)()
	var b strings.Builder
	b.WriteString("[")
	text := strings.Repeat("lorem ipsum ", 4000) // ~48 KB a conversation
	for i := range 200 {
		if i > 0 {
			b.WriteString(",\n")
		}
		n := strconv.Itoa(i)
		b.WriteString(`{"title":"Chat ` + n + `","mapping":{"a":{"id":"a","message":{"id":"a","author":{"role":"user"},"content":{"content_type":"text","parts":["` + text + n + `"]}},"parent":null,"children":[]}},"current_node":"a"}`)
	}
	b.WriteString("]")
	data := []byte(b.String())
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	base := live()
	var most uint64
	rest := data
	n := 0
	err := formats.ImportEachFrom(len(data), func() []byte {
		k := min(256<<10, len(rest))
		p := rest[:k:k]
		rest = rest[k:]
		return p
	}, formats.Auto, func(cv formats.Conversation, _ int) {
		if n++; n%10 == 0 {
			most = max(most, live()-min(base, live()))
		}
	})
	if err != nil || n != 200 {
		t.Fatal(n, err)
	}
	if most > uint64(len(data))/4 {
		t.Fatalf("the import held %d bytes at most beside the caller's file of %d: more than a quarter of it", most, len(data))
	}
	t.Logf("held %d bytes at most, for a file of %d", most, len(data))
}

// A large conversation written with spaces (Python's json.dump) is read
// whole, then compacted into a copy of its own: the pieces it was read from
// go before its import, not after, so that the conversation is not held
// twice through it (a 47 MB one took the module to 330 MB, now 259).
func TestImportEachFromLetsGoOfASpacedConversationsPiecesBeforeItsImport(t *testing.T) {
	defer formats.SetWholeUnder(1 << 20)()
	var b strings.Builder
	b.WriteString(`[{"title": "Spaced", "mapping": {`)
	parent := "null"
	for i := range 4000 {
		id := `"m` + strconv.Itoa(i) + `"`
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(id + `: {"id": ` + id + `, "message": {"id": ` + id + `, "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["` + strings.Repeat("word ", 400) + `"]}}, "parent": ` + parent + `, "children": []}`)
		parent = id
	}
	b.WriteString(`}, "current_node": ` + parent + `}]`)
	data := []byte(b.String())
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	rest := data
	var during, after int64
	var tree any
	err := formats.ImportEachFrom(len(data), func() []byte {
		k := min(256<<10, len(rest))
		p := bytes.Clone(rest[:k])
		rest = rest[k:]
		return p
	}, formats.Auto, func(cv formats.Conversation, _ int) {
		tree, during = cv.Tree, live()
	})
	if err != nil || tree == nil {
		t.Fatal(err)
	}
	after = live() // the tree alone, the pieces gone
	runtime.KeepAlive(tree)
	runtime.KeepAlive(data)
	if held := during - after; held > int64(len(data))/4 {
		t.Fatalf("beside the tree, the import held %d bytes when it handed the conversation over, for a file of %d: its pieces", held, len(data))
	}
	t.Logf("held %d bytes beside the tree, for a file of %d", during-after, len(data))
}

// Any file, read in pieces of any size, gives what ImportEach gives of it
// whole (TestImportEachFromGivesWhatImportEachGivesOfTheWholeFile, on
// inputs no one wrote).
func FuzzImportEachFromIsImportEach(f *testing.F) {
	conv := `{"title": "Chat", "mapping": {"a": {"id": "a", "message": {"id": "a", "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["hi \ud83d\ude00"]}}, "parent": null, "children": []}}, "current_node": "a"}`
	f.Add([]byte("["+conv+", "+conv+"]"), uint8(7))
	f.Add([]byte("[ "+conv+",\n"+strings.ReplaceAll(conv, "Chat", "t\\u0069tle")+"  ]  "), uint8(64))
	f.Add([]byte(`[{"uuid":"c","name":"n","chat_messages":[{"uuid":"m","sender":"human","text":"hi"}]}, {"uuid":"d","name":"x"}]`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		defer formats.SetWholeUnder(0)()
		want := eachOf(t, data, 0, formats.Auto)
		if got := eachOf(t, data, int(piece)+1, formats.Auto); got != want {
			t.Fatalf("in pieces of %d:\n got %s\nwant %s", int(piece)+1, got, want)
		}
	})
}
