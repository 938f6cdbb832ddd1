package treecalls

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// The JSON shapes of SPEC §5: camelCase keys, null for what is absent.

func appendField(b []byte, first bool, key string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = rawjson.AppendString(b, key)
	return append(b, ':')
}

func appendOptString(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return rawjson.AppendString(b, s)
}

func appendNode(b []byte, n core.Node) []byte {
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, n.ID)
	b = append(b, `,"parent":`...)
	b = appendOptString(b, n.Parent)
	b = append(b, `,"children":`...)
	b = rawjson.AppendStrings(b, n.Children)
	b = append(b, `,"message":`...)
	b = append(b, n.Message...)
	b = append(b, `,"label":`...)
	b = appendOptString(b, n.Label)
	b = append(b, `,"createdAtMs":`...)
	b = rawjson.AppendInt(b, n.CreatedAtMs)
	return append(b, '}')
}

func appendSummary(b []byte, s *core.Summary) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"summary":`...)
	b = rawjson.AppendString(b, s.Summary)
	b = append(b, `,"nodeId":`...)
	b = appendOptString(b, s.NodeID)
	b = append(b, `,"branch":`...)
	b = rawjson.AppendString(b, s.Branch)
	b = append(b, `,"modelId":`...)
	b = appendOptString(b, s.ModelID)
	b = append(b, `,"createdAtMs":`...)
	b = rawjson.AppendInt(b, s.CreatedAtMs)
	return append(b, '}')
}

func appendBranch(b []byte, br core.Branch) []byte {
	b = append(b, `{"name":`...)
	b = rawjson.AppendString(b, br.Name)
	b = append(b, `,"leaf":`...)
	b = appendOptString(b, br.Leaf)
	b = append(b, `,"summary":`...)
	b = appendSummary(b, br.Summary)
	b = append(b, `,"createdAtMs":`...)
	b = rawjson.AppendInt(b, br.CreatedAtMs)
	return append(b, '}')
}

func appendProblems(b []byte, ps []core.Problem) []byte {
	b = append(b, '[')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"kind":`...)
		b = rawjson.AppendString(b, p.Kind)
		b = append(b, `,"node":`...)
		b = appendOptString(b, p.Node)
		b = append(b, `,"branch":`...)
		b = appendOptString(b, p.Branch)
		b = append(b, `,"message":`...)
		b = rawjson.AppendString(b, p.Message)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendMessages writes a JSON array of messages.
func appendMessages(b []byte, msgs []core.Message) []byte {
	b = append(b, '[')
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	return append(b, ']')
}

// appendLines writes ids one per line: ids and names hold no control
// characters, and splitting a line list in JS is far cheaper than JSON.parse.
func appendLines(b []byte, ids []string) []byte {
	for i, id := range ids {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, id...)
	}
	return b
}

// lines splits a line list (appendLines's form) into strings, which share one
// copy of b and so outlive the input buffer (strings.Split would link its
// generic splitter, ~1 KB gzipped).
func lines(b []byte) []string {
	s := string(b)
	var out []string
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			return append(out, s)
		}
		out, s = append(out, s[:i]), s[i+1:]
	}
}
