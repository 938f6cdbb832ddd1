package fullcalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/formats/openai"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// mergeTree merges another tree into the live one in place (core's
// Tree.MergeWith, SPEC §3): arguments "handle" and the other tree's handle, or
// "json" and a .tree.json file, then the options (see mergeOptions). It returns the report as JSON. The message
// slots JavaScript caches stay right without remapping: a merge never changes
// a stored message's bytes, and a slot is keyed by those bytes' address (a
// node whose id the merge gives other content gets another message, so
// another slot).
func mergeTree(r *treecalls.Request) ([]byte, error) {
	kind, err := r.Str(0, "kind")
	if err != nil {
		return nil, err
	}
	arg, err := r.Arg(1, "other")
	if err != nil {
		return nil, err
	}
	var other *core.Tree
	switch kind {
	case "handle":
		h, err := strconv.ParseUint(string(arg), 10, 32)
		t, ok := liveTree(h, err)
		if !ok {
			return nil, bridge.Invalid("the other SessionTree was freed; merge a live tree or its saved JSON")
		}
		other = t
	case "json":
		if other, err = core.Unmarshal(arg); err != nil { // copies arg
			return nil, err
		}
		defer scratch(other, len(arg))
	default:
		return nil, bridge.Invalid("mergeTree: unknown kind " + string(rawjson.AppendString(nil, kind)))
	}
	opts, err := mergeOptions(r, 2)
	if err != nil {
		return nil, err
	}
	rep, err := r.Tree().MergeWith(other, opts)
	if err != nil {
		return nil, err
	}
	return rep.AppendJSON(nil), nil
}

// liveTree returns the live tree of a parsed handle, or false when the
// handle did not parse or names no tree.
func liveTree(h uint64, err error) (*core.Tree, bool) {
	if err != nil {
		return nil, false
	}
	return treecalls.TreeOf(uint32(h))
}

// importTree reads argument 1 in format argument 0 (a SPEC §7 name or "auto")
// into a new live tree and returns a little-endian uint32 length, the report as
// JSON (as import's), and then the tree's handle in decimal.
func importTree(r *treecalls.Request) ([]byte, error) {
	format, err := r.Str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := r.Arg(1, "text")
	if err != nil {
		return nil, err
	}
	// The tree is kept, and data is a view of the input buffer: copy it.
	t, rep, err := formats.Import(format, append([]byte(nil), data...))
	if err != nil {
		return nil, err
	}
	b := sealReport(appendReport(make([]byte, 4, 256), rep))
	return strconv.AppendUint(b, uint64(treecalls.Keep(t, len(data))), 10), nil
}

// exportTree writes the live tree in format argument 0; with argument 1
// "report", as exportReported does.
func exportTree(r *treecalls.Request) ([]byte, error) {
	format, err := r.Str(0, "format")
	if err != nil {
		return nil, err
	}
	if r.NArgs() > 1 {
		return exportReported(r.Tree(), format)
	}
	return formats.Export(r.Tree(), format)
}

// exportReported writes t in format as a little-endian uint32 length, the
// export's report as JSON (the openai export's projection report, null for
// the other formats: they carry what they cannot write in the file itself),
// and then the file.
func exportReported(t *core.Tree, format string) ([]byte, error) {
	if format != "openai" {
		out, err := formats.Export(t, format)
		if err != nil {
			return nil, err
		}
		return append(sealReport(append(make([]byte, 4, 8+len(out)), "null"...)), out...), nil
	}
	out, rep, err := openai.ExportReport(t)
	if err != nil {
		return nil, err
	}
	b := sealReport(rep.AppendJSON(make([]byte, 4, 512+len(out))))
	return append(b, out...), nil
}
