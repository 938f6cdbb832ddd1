package chat

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// read is a first cut: role and string or text-part content. The shapes of
// each format and provider are added beside it (read_*.go), each with tests.
func read(m core.Message) Turn {
	role, _ := rawjson.LookupString(m, "role")
	t := Turn{Role: mapRole(role), Source: role}
	raw, ok := rawjson.Lookup(m, "content")
	if !ok {
		return t
	}
	if len(raw) > 0 && raw[0] == '"' {
		s, _ := rawjson.LookupString(m, "content")
		if s != "" {
			t.Parts = append(t.Parts, Part{Kind: Text, Text: s})
		}
		return t
	}
	t.Parts = append(t.Parts, Part{Kind: Other, Raw: raw})
	return t
}

// mapRole maps a shape's role word onto the four roles.
func mapRole(r string) Role {
	switch r {
	case "system", "developer":
		return System
	case "assistant", "model", "ai", "bot":
		return Assistant
	case "tool", "toolResult", "function", "tool_result":
		return Tool
	}
	return User
}
