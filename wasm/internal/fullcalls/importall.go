package fullcalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// importAllFiles reads argument 1 in format argument 0 as a list of
// conversations (formats.ImportEach) and returns, little-endian: a uint32
// count, then for each conversation three uint32-length-prefixed fields: its
// title, its report as JSON (as import's) and its canonical .tree.json bytes.
// Each tree is written out and dropped before the next is read.
func importAllFiles(c *treecalls.Request) ([]byte, error) {
	return importAll(c, false, func(cv formats.Conversation) []byte { return cv.Tree.Marshal() })
}

// importAllTrees is importAllFiles into new live trees: each third field is
// the tree's handle in decimal.
func importAllTrees(c *treecalls.Request) ([]byte, error) {
	return importAll(c, true, func(cv formats.Conversation) []byte {
		return strconv.AppendUint(nil, uint64(treecalls.Keep(cv.Tree, cv.Tree.MarshalSize())), 10)
	})
}

// importGarbage is about what reading a conversation leaves as garbage per
// byte of it (its copy without spaces, the records, the tree, its file): 17
// to 19 for spaced ChatGPT and claude.ai exports, measured natively. The call
// holds the module's collector (bridge.Reserve: a large argument), so it
// collects each time the garbage so counted reaches importCollect: before, an
// import of a 345 MB ChatGPT export allocated past wasm32's 4 GiB and the
// module died ("out of memory"), and a 34 MB claude.ai export grew the module
// to 1.2 GB, which it never gives back. What stays live (the file, the result
// so far) is mostly bytes without pointers: a collection marks little.
const (
	importGarbage = 16
	importCollect = 64 << 20
)

func importAll(c *treecalls.Request, keep bool, tree func(formats.Conversation) []byte) ([]byte, error) {
	format, err := c.Str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := c.Arg(1, "text")
	if err != nil {
		return nil, err
	}
	if keep {
		// Trees are kept, and data is a view of the input buffer: copy it.
		data = append([]byte(nil), data...)
	}
	// Each conversation's fields apart, joined once at the end: one result
	// grown as it went needed a larger array each time, which the freed
	// ones, scattered, could not hold (3.6 GB taken for a 660 MB result).
	var parts [][]byte
	size, garbage := 4, 0
	err = formats.ImportEach(data, format, func(cv formats.Conversation, n int) {
		p := appendField(nil, []byte(cv.Title))
		p = appendField(p, appendReport(nil, cv.Report))
		p = appendField(p, tree(cv))
		parts = append(parts, p)
		size += len(p)
		if garbage += importGarbage * n; garbage >= importCollect {
			bridge.Collect()
			garbage = 0
		}
	})
	if err != nil {
		return nil, err
	}
	out := appendU32(make([]byte, 0, size), len(parts))
	for i, p := range parts {
		out = append(out, p...)
		parts[i] = nil
	}
	return out, nil
}

func appendU32(b []byte, n int) []byte {
	return append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

func appendField(b, f []byte) []byte {
	return append(appendU32(b, len(f)), f...)
}
