package sillytavern

import (
	"strings"
	"time"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/chat"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// native writes a message of another shape as a SillyTavern message line:
// the speaker's name (the header's user_name or character_name), is_user,
// is_system false (true hides a message from the prompt), a system message as
// SillyTavern's narrator (extra.type), send_date in SillyTavern's humanized form (which its
// parseTimestamp reads to the millisecond), mes, and extra (the model's
// reasoning under extra.reasoning, where SillyTavern keeps it).
func native(tr *core.Tree, n core.Node, header []byte) []byte {
	t := convert.Named(tr, n, chat.Read(n.Message))
	at := t.TimeMs
	if at == 0 {
		at = n.CreatedAtMs
	}
	user, _ := rawjson.LookupString(header, "user_name")
	char, _ := rawjson.LookupString(header, "character_name")
	name, isUser := char, false
	switch t.Role {
	case chat.User, chat.Tool:
		name, isUser = user, true
	case chat.System:
		name = "System"
	}
	var reasoning []string
	for _, p := range t.Parts {
		if p.Kind == chat.Thinking {
			reasoning = append(reasoning, p.Text)
		}
	}
	extra := convert.NewObject(nil)
	if t.Role == chat.System {
		extra.String("type", "narrator") // as SillyTavern's /sys writes it
	}
	if len(reasoning) > 0 {
		extra.String("reasoning", strings.Join(reasoning, "\n\n"))
	}
	return convert.NewObject(nil).String("name", name).Raw("is_user", boolJSON(isUser)).Raw("is_system", []byte("false")).
		String("send_date", humanized(at)).String("mes", turnText(t)).Raw("extra", extra.Bytes()).Bytes()
}

func boolJSON(b bool) []byte {
	if b {
		return []byte("true")
	}
	return []byte("false")
}

// text is what a node shows as a swipe: its content when it is a string (a
// SillyTavern swipe's), else the text of its neutral form.
func text(tr *core.Tree, n core.Node) string {
	if c, ok := rawjson.Lookup(n.Message, "content"); ok && len(c) > 0 && c[0] == '"' {
		if _, own := rawjson.Lookup(n.Message, Key); own {
			return rawjson.Unquote(c)
		}
	}
	return turnText(convert.Named(tr, n, chat.Read(n.Message)))
}

// turnText is a turn as the one string a SillyTavern message shows: its
// text, a tool call as a fenced call, a tool's result in a code block.
func turnText(t chat.Turn) string {
	var out []string
	for _, p := range t.Parts {
		switch p.Kind {
		case chat.Text:
			out = append(out, p.Text)
		case chat.ToolCall:
			out = append(out, "```"+p.Name+"\n"+p.Args+"\n```")
		case chat.ToolResult:
			body := p.Text
			if body == "" && len(p.Raw) > 0 {
				body = string(p.Raw)
			}
			out = append(out, "```\n"+body+"\n```")
		case chat.Image:
			if p.URL != "" && !strings.HasPrefix(p.URL, "data:") {
				out = append(out, "![image]("+p.URL+")")
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// swipeInfo is the swipe_info of a line of siblings: each one's send_date
// and extra, as SillyTavern records a swipe.
func swipeInfo(tr *core.Tree, sibs []string) []byte {
	items := make([][]byte, len(sibs))
	for j, s := range sibs {
		n, _ := tr.Node(s)
		items[j] = convert.NewObject(nil).String("send_date", humanized(n.CreatedAtMs)).Raw("extra", []byte("{}")).Bytes()
	}
	return convert.RawArray(items)
}

// humanized writes ms as SillyTavern's "2024-6-5 @14h 56m 50s 682ms" (UTC).
func humanized(ms int64) string {
	tm := time.UnixMilli(ms).UTC()
	return tm.Format("2006-1-2 @15h 04m 05s ") + strings.TrimLeft(tm.Format(".000"), ".") + "ms"
}
