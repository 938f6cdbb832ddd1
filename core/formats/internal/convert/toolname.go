package convert

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
)

// CallName returns the name of the tool call callID answers, looked up in the
// messages above n (an Anthropic tool_result names only the call's id), or "".
func CallName(t *core.Tree, n core.Node, callID string) string {
	if callID == "" {
		return ""
	}
	id := n.Parent
	for i := 0; i < 16 && id != ""; i++ {
		p, ok := t.Node(id)
		if !ok {
			return ""
		}
		for _, part := range chat.Read(p.Message).Parts {
			if part.Kind == chat.ToolCall && part.CallID == callID {
				return part.Name
			}
		}
		id = p.Parent
	}
	return ""
}

// Named fills in the tool's name of every result of turn that lacks it.
func Named(t *core.Tree, n core.Node, turn chat.Turn) chat.Turn {
	for i := range turn.Parts {
		p := &turn.Parts[i]
		if p.Kind == chat.ToolResult && p.Name == "" {
			p.Name = CallName(t, n, p.CallID)
		}
	}
	return turn
}
