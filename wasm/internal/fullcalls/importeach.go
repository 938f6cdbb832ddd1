package fullcalls

import (
	"runtime"
	"strconv"
	"unsafe"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/gcpace"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// A file of many conversations read one conversation a call
// (SessionTree.importEach in js/sessiontree.js), so that the module holds
// one conversation and a piece of the file, never the trees of them all
// (importAll's result, and the trees JavaScript loaded from it, held a 345
// MB ChatGPT export's 2,001 conversations at once, and the page's import
// grew the browser by 5.7 GB), nor the file (copied here whole, it took the
// module to 0.93 GB, which it never gives back):
//
//   - importBegin(format, size, kind) makes a buffer for a piece of the file
//     that belongs to this import alone (other calls use the shared input
//     buffer, never this one) and answers "number address length": the
//     import's number, and where JavaScript writes each piece, of at most
//     length bytes. size is the file's. kind is "files" or "trees".
//   - importNext(number, written) reads on, and answers the next
//     conversation's three fields as importAll frames one (title, report,
//     then its .tree.json, or for "trees" the handle of a new live tree);
//     or "more", one field of those four letters, when it needs the file's
//     next piece: JavaScript writes it into the buffer and calls again with
//     its length as written (0: the file's end; "0" too on any other call);
//     or nothing once every conversation has been read: the import is then
//     over, as it is after an error, which it answers.
//   - importEnd(number) gives an import up.
//
// formats.ImportEachFrom runs in a goroutine of its own (bridge.Sliced),
// parked (bridge.Give) after each conversation until the next importNext,
// and where it asks for a piece.
type eachImport struct {
	buf     []byte // where JavaScript writes a piece of the file
	size    int    // the file's
	format  string
	trees   bool
	call    uint32 // the parked goroutine's number; 0 before the first importNext
	want    bool   // parked for a piece of the file
	written int    // the length of the piece JavaScript wrote
	cur     *formats.Conversation
	curSize int // the length of the file's bytes cur came from
	given   int // conversations answered
	garbage int // counted as importAll counts it
}

var (
	imports    = map[uint32]*eachImport{}
	nextImport uint32
)

// forever is a slice no call uses up: an import parks where it gives a
// conversation, not at core's yield points.
const forever = 1 << 62

// importGOGC is the collector's pace while importNext reads a conversation:
// the heap may grow by a quarter before a collection, and by importHeadroom
// at least. The file, which the module held whole, was a quarter of a large
// heap by itself; without it, a quarter of what is left came so soon that
// the collections took 12% more time (345 MB: 14.4 → 16.1 s in Node; with
// 32 MB of headroom 13.5 s, and the module grew by 506 MB as at 25%).
const (
	importGOGC     = 25
	importHeadroom = 32 << 20
)

// importPercent is the GOGC that lets the heap grow by importGOGC percent,
// or by importHeadroom when that is more (at most the module's 200).
func importPercent() int32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int32(min(200, max(importGOGC, importHeadroom*100/max(m.HeapAlloc, 1))))
}

// importPiece is the most of the file JavaScript writes at a time.
const importPiece = 1 << 20

// more is importNext's answer when it needs the file's next piece.
var more = appendField(nil, []byte("more"))

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
	piece := min(n, importPiece)
	if err := bridge.Room(piece); err != nil {
		return nil, err
	}
	im := &eachImport{buf: make([]byte, piece, max(piece, 8)), size: n, format: format, trees: kind == "trees"}
	nextImport++
	for nextImport == 0 || imports[nextImport] != nil {
		nextImport++
	}
	imports[nextImport] = im
	// "number address length", as treecalls' loadBegin answers, and the piece's length
	b := strconv.AppendUint(nil, uint64(nextImport), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(uintptr(unsafe.Pointer(unsafe.SliceData(im.buf[:cap(im.buf)])))), 10)
	b = append(b, ' ')
	return strconv.AppendUint(b, uint64(len(im.buf)), 10), nil
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
	written := 0
	if im.want && r.NArgs() < 2 {
		return nil, bridge.Invalid("importNext: the length of the piece asked for is missing (written)")
	}
	if r.NArgs() > 1 {
		s, err := r.Str(1, "written")
		if err != nil {
			return nil, err
		}
		var ok bool
		if written, ok = rawjson.Atoi(s); !ok || written < 0 || written > len(im.buf) || written > 0 && !im.want {
			return nil, bridge.Invalid("importNext: written must be the length of the piece asked for, up to " + strconv.Itoa(len(im.buf)))
		}
	}
	im.written = written
	// A conversation's import makes some 17 times its size of garbage: at the
	// module's GOGC of 200 (js/sessiontree.js) the heap, which then held the
	// whole file, grew to three times it before a collection, and a 345 MB
	// export's module reached 1.4 GB, which it never gives back.
	defer gcpace.SetGCPercent(gcpace.SetGCPercent(importPercent()))
	var pending uint32
	if im.call == 0 {
		_, pending, err = bridge.Sliced(forever, func() ([]byte, error) {
			return nil, formats.ImportEachFrom(im.size, func() []byte {
				im.want = true
				bridge.Give()
				im.want = false
				return im.buf[:im.written]
			}, im.format, func(cv formats.Conversation, size int) {
				im.cur, im.curSize = &cv, size
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
	if im.want {
		return more, nil
	}
	cv := im.cur
	im.cur = nil
	first := im.given == 0
	im.given++
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
	// after the first, whose step also read the file's first pieces and
	// detected its format, or read a file of a single conversation whole and
	// counted a list's conversations (~4 times the file, measured).
	if im.garbage += importGarbage * im.curSize; im.garbage >= importCollect || first {
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
