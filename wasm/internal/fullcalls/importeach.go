package fullcalls

import (
	"strconv"
	"unsafe"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/gcpace"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// A file of many conversations read one conversation a call
// (SessionTree.importEach in js/sessiontree.js), so that the module holds the
// file and one conversation, never the trees of them all: importAll's
// result, and the trees JavaScript loaded from it, held a 345 MB ChatGPT
// export's 2,001 conversations at once, and the page's import grew the
// browser by 5.7 GB.
//
//   - importBegin(format, size, kind) makes a buffer of size bytes that
//     belongs to this import alone and answers "number address": JavaScript
//     copies the file there (a piece at a time, if it likes: other calls use
//     the shared input buffer, never this one). kind is "files" or "trees".
//   - importNext(number) reads the next conversation and answers its three
//     fields as importAll frames one (title, report, then its .tree.json, or
//     for "trees" the handle of a new live tree), or nothing once every
//     conversation has been read: the import is then over, as it is after an
//     error, which it answers.
//   - importEnd(number) gives an import up.
//
// formats.ImportEach runs in a goroutine of its own (bridge.Sliced), parked
// after each conversation (bridge.Give) until the next importNext.
type eachImport struct {
	buf     []byte
	format  string
	trees   bool
	call    uint32 // the parked goroutine's number; 0 before the first importNext
	cur     *formats.Conversation
	size    int // the length of the file's bytes cur came from
	garbage int // counted as importAll counts it
}

var (
	imports    = map[uint32]*eachImport{}
	nextImport uint32
)

// forever is a slice no call uses up: an import parks where it gives a
// conversation, not at core's yield points.
const forever = 1 << 62

// importGOGC is the collector's pace while importNext reads a conversation.
const importGOGC = 25

func importBegin(r *treecalls.Request) ([]byte, error) {
	format, err := r.Str(0, "format")
	if err != nil {
		return nil, err
	}
	s, err := r.Str(1, "size")
	if err != nil {
		return nil, err
	}
	n, ok := rawjson.Atoi(s)
	if !ok || n < 0 || n > treecalls.MaxLoad {
		return nil, bridge.Invalid("importBegin: the size must be a number of bytes up to " + strconv.Itoa(treecalls.MaxLoad))
	}
	kind, err := r.Str(2, "kind")
	if err != nil {
		return nil, err
	}
	if kind != "files" && kind != "trees" {
		return nil, bridge.Invalid(`importBegin: the kind must be "files" or "trees"`)
	}
	if err := bridge.Room(n); err != nil {
		return nil, err
	}
	im := &eachImport{buf: make([]byte, n, max(n, 8)), format: format, trees: kind == "trees"}
	nextImport++
	for nextImport == 0 || imports[nextImport] != nil {
		nextImport++
	}
	imports[nextImport] = im
	// "number address", as treecalls' loadBegin answers
	b := strconv.AppendUint(nil, uint64(nextImport), 10)
	b = append(b, ' ')
	return strconv.AppendUint(b, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(im.buf[:cap(im.buf)])))), 10), nil
}

// importNumber reads argument 0, an import's number, and finds it.
func importNumber(r *treecalls.Request) (uint32, *eachImport, error) {
	s, err := r.Str(0, "import")
	if err != nil {
		return 0, nil, err
	}
	n, ok := rawjson.ParseUint(s, 32)
	if !ok || imports[uint32(n)] == nil {
		return 0, nil, bridge.Invalid("no import numbered " + s + " is under way")
	}
	return uint32(n), imports[uint32(n)], nil
}

func importNext(r *treecalls.Request) ([]byte, error) {
	n, im, err := importNumber(r)
	if err != nil {
		return nil, err
	}
	// A conversation's import makes some 17 times its size of garbage over a
	// heap that holds the whole file: at the module's GOGC of 200
	// (js/sessiontree.js) the heap grew to three times the file before a
	// collection, and a 345 MB export's module reached 1.4 GB, which it
	// never gives back. The file's bytes hold no pointers: a collection marks
	// little of the heap.
	defer gcpace.SetGCPercent(gcpace.SetGCPercent(importGOGC))
	var pending uint32
	first := im.call == 0
	if first {
		_, pending, err = bridge.Sliced(forever, func() ([]byte, error) {
			return nil, formats.ImportEach(im.buf, im.format, func(cv formats.Conversation, size int) {
				im.cur, im.size = &cv, size
				bridge.Give()
			})
		})
	} else {
		_, pending, err = bridge.Resume(im.call, forever)
	}
	if pending == 0 { // every conversation read, or an error
		endImport(n, im)
		return nil, err
	}
	im.call = pending
	cv := im.cur
	im.cur = nil
	var tree []byte
	if im.trees {
		tree = strconv.AppendUint(nil, uint64(treecalls.Keep(cv.Tree, cv.Tree.MarshalSize())), 10)
	} else {
		tree = cv.Tree.Marshal()
	}
	out := appendField(nil, []byte(cv.Title))
	out = appendField(out, appendReport(nil, cv.Report))
	out = appendField(out, tree)
	// The conversation's garbage, collected as importAll collects it, and
	// after the first, whose step also looked over the whole file (detected
	// its format, counted its conversations: ~4 times the file, measured): the
	// file, live throughout, is bytes a collection does not mark.
	if im.garbage += importGarbage * im.size; im.garbage >= importCollect || first {
		bridge.Collect()
		im.garbage = 0
	}
	return out, nil
}

func importEnd(r *treecalls.Request) ([]byte, error) {
	s, err := r.Str(0, "import")
	if err != nil {
		return nil, err
	}
	n, ok := rawjson.ParseUint(s, 32)
	if im := imports[uint32(n)]; ok && im != nil {
		if im.call != 0 {
			bridge.Cancel(im.call)
		}
		endImport(uint32(n), im)
	}
	return nil, nil // over already: nothing to give up
}

func endImport(n uint32, im *eachImport) {
	delete(imports, n)
	bridge.Owe(cap(im.buf))
	im.buf = nil
}
