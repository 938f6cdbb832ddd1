package convert

import "github.com/sessiontree/sessiontree/core/rawjson"

// recordKeys are the members under which an import keeps a format's own
// record, or the records kept with a node (see package formats).
var recordKeys = []string{
	"chatgpt", "chatgpt_conversation", "claudecode", "claudecode_before", "claudecode_after",
	"codex", "codex_before", "codex_after", "librechat", "librechat_conversation",
	"openwebui_chat", "pi", "pi_before", "pi_after", "claudeai", "claudeai_conversation",
	"sillytavern", "sillytavern_chat",
}

// HasRecord reports whether msg keeps a format's record: a message that came
// from a file, which an export to another format writes in that format's own
// form rather than carrying the record along.
func HasRecord(msg []byte) bool {
	for _, k := range recordKeys {
		if _, ok := rawjson.Lookup(msg, k); ok {
			return true
		}
	}
	return false
}
