// Package markdown exports a tree as a Markdown document: the active branch,
// one section per message, then the other branches' summaries (or stubs).
// There is no Markdown import: Markdown does not say where a message ends.
package markdown

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Export renders the active branch and the other branches' summaries.
func Export(t *core.Tree) ([]byte, error) {
	sp, err := t.SpliceForLinearExport()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString("# Conversation\n\n")
	for _, m := range sp.Messages {
		core.Tick()
		b.WriteString("## ")
		b.WriteString(m.Role())
		b.WriteString("\n\n")
		text := strings.TrimSpace(convert.ContentText(m))
		if calls, ok := rawjson.Lookup(m, "tool_calls"); ok {
			list, _ := convert.Elements(calls)
			out := []byte(text) // one buffer: a string grown by += copied itself at each call
			for _, c := range list {
				fn, _ := rawjson.Lookup(c, "function")
				name, _ := rawjson.LookupString(fn, "name")
				args, _ := rawjson.LookupString(fn, "arguments")
				out = append(append(append(append(append(out, "\n\n`"...), name...), '('), args...), ")`"...)
			}
			text = string(out)
		}
		if text == "" {
			text = "_(no text)_"
		}
		b.WriteString(strings.TrimSpace(text))
		b.WriteString("\n\n")
	}
	if len(sp.Summaries) > 0 {
		b.WriteString("---\n\n## Other branches\n\n")
		for _, s := range sp.Summaries {
			b.WriteString("- **")
			b.WriteString(s.Branch)
			b.WriteString("**: ")
			b.WriteString(strings.ReplaceAll(s.Summary, "\n", " "))
			b.WriteString("\n")
		}
	}
	return []byte(b.String()), nil
}
