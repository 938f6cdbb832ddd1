package formattest

import (
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/assistantui"
	"github.com/sessiontree/sessiontree/core/formats/chatgpt"
	"github.com/sessiontree/sessiontree/core/formats/claudeai"
	"github.com/sessiontree/sessiontree/core/formats/librechat"
	"github.com/sessiontree/sessiontree/core/formats/openwebui"
	"github.com/sessiontree/sessiontree/core/formats/pi"
	"github.com/sessiontree/sessiontree/core/formats/sillytavern"
)

// Exchange is a format's Export and Import, for CrossFormats.
type Exchange struct {
	Name   string
	Export func(*core.Tree) ([]byte, error)
	Import Import
}

// CrossFormats exports tr to each format and imports it back: the tree must
// come back whole (the export carries what the format has no field for). It
// returns each export's size.
func CrossFormats(t *testing.T, name string, tr *core.Tree, to []Exchange) map[string]int {
	t.Helper()
	sizes := map[string]int{}
	for _, x := range to {
		out, err := x.Export(tr)
		if err != nil {
			t.Errorf("%s → %s: %v", name, x.Name, err)
			continue
		}
		sizes[x.Name] = len(out)
		back, _, err := x.Import(out)
		if err != nil {
			t.Errorf("%s → %s → import: %v", name, x.Name, err)
			continue
		}
		if !Same(tr, back) {
			t.Errorf("%s → %s: import(export(t)) != t", name, x.Name)
		}
	}
	return sizes
}

// Trees is the exchange of the tree formats this package's callers check
// against each other: pi, openwebui, librechat, chatgpt, claudeai,
// sillytavern and assistant-ui.
func Trees() []Exchange {
	return []Exchange{
		{"pi", pi.Export, pi.Import},
		{"openwebui", openwebui.Export, openwebui.Import},
		{"librechat", librechat.Export, librechat.Import},
		{"chatgpt", chatgpt.Export, chatgpt.Import},
		{"claudeai", claudeai.Export, claudeai.Import},
		{"sillytavern", sillytavern.Export, sillytavern.Import},
		{"assistant-ui", assistantui.Export, assistantui.Import},
	}
}
