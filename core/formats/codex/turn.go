package codex

import (
	"strings"
	"unicode"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// contextFragments are the wrappers of the user messages Codex injects
// itself (the environment, AGENTS.md, a skill, a shell command the user ran
// with "!", an aborted turn's notice, a subagent's notification, editor
// context; <user_instructions> in rollouts before AGENTS.md's heading). A
// user message with a text part wrapped in one is context, not a turn: Codex
// does not count it when it rolls a thread back (codex-rs core,
// contextual_user_message.rs and context_manager's is_user_turn_boundary).
var contextFragments = [][2]string{
	{"# AGENTS.md instructions for ", "</INSTRUCTIONS>"},
	{"<user_instructions>", "</user_instructions>"},
	{"<environment_context>", "</environment_context>"},
	{"<skill>", "</skill>"},
	{"<user_shell_command>", "</user_shell_command>"},
	{"<turn_aborted>", "</turn_aborted>"},
	{"<subagent_notification>", "</subagent_notification>"},
	{"<additional_context>", "</additional_context>"},
}

// userTurn reports whether msg is a user turn as Codex counts them: a user
// message none of whose input_text parts is injected context.
func userTurn(msg core.Message) bool {
	if msg.Role() != "user" {
		return false
	}
	content, _ := rawjson.Lookup(msg, "content")
	if len(content) > 0 && content[0] == '"' {
		return !contextText(rawjson.Unquote(content))
	}
	parts, _ := convert.Elements(content)
	for _, p := range parts {
		if typ, _ := rawjson.LookupString(p, "type"); typ != "input_text" {
			continue
		}
		if text, _ := rawjson.LookupString(p, "text"); contextText(text) {
			return false
		}
	}
	return true
}

// contextText reports whether text, less surrounding white space, opens and
// closes with one of contextFragments (in any ASCII case, as Codex compares).
func contextText(text string) bool {
	text = strings.TrimFunc(text, unicode.IsSpace)
	for _, f := range contextFragments {
		if len(text) >= len(f[0])+len(f[1]) &&
			strings.EqualFold(text[:len(f[0])], f[0]) && strings.EqualFold(text[len(text)-len(f[1]):], f[1]) {
			return true
		}
	}
	return false
}
