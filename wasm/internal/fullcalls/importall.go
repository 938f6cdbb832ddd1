package fullcalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// importAllFiles reads argument 1 in format argument 0 as a list of
// conversations (formats.ImportAll) and returns, little-endian: a uint32
// count, then for each conversation three uint32-length-prefixed fields: its
// title, its report as JSON (as import's) and its canonical .tree.json bytes.
func importAllFiles(c *treecalls.Request) ([]byte, error) {
	return importAll(c, func(cv formats.Conversation) []byte {
		b := cv.Tree.Marshal()
		// The tree, this file (copied into the result) and about as much of
		// the input's copy are garbage once the call ends.
		scratch(cv.Tree, 2*len(b))
		return b
	})
}

// importAllTrees is importAllFiles into new live trees: each third field is
// the tree's handle in decimal.
func importAllTrees(c *treecalls.Request) ([]byte, error) {
	return importAll(c, func(cv formats.Conversation) []byte {
		return strconv.AppendUint(nil, uint64(treecalls.Keep(cv.Tree, cv.Tree.MarshalSize())), 10)
	})
}

func importAll(c *treecalls.Request, tree func(formats.Conversation) []byte) ([]byte, error) {
	format, err := c.Str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := c.Arg(1, "text")
	if err != nil {
		return nil, err
	}
	// Trees may be kept, and data is a view of the input buffer: copy it.
	convs, err := formats.ImportAll(append([]byte(nil), data...), format)
	if err != nil {
		return nil, err
	}
	out := appendU32(make([]byte, 0, 256), len(convs))
	for _, cv := range convs {
		out = appendField(out, []byte(cv.Title))
		out = appendField(out, appendReport(nil, cv.Report))
		out = appendField(out, tree(cv))
	}
	return out, nil
}

func appendU32(b []byte, n int) []byte {
	return append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

func appendField(b, f []byte) []byte {
	return append(appendU32(b, len(f)), f...)
}
