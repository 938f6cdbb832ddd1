package formats_test

import (
	"errors"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// ImportAll of any input fails with a *core.Error or gives trees that
// validate, one per conversation.
func FuzzImportAll(f *testing.F) {
	f.Add([]byte(`[{"id":"a","title":"t","current_node":"x","mapping":{"x":{"id":"x","message":{"id":"x","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}},"parent":null,"children":[]}}},{"mapping":{}}]`))
	f.Add([]byte(`[{"chat":{"title":"t","history":{"currentId":"m","messages":{"m":{"id":"m","parentId":null,"childrenIds":[],"role":"user","content":"hi"}}}}}]`))
	f.Add([]byte(`{"version":4,"history":[]}`))
	f.Add([]byte(`[{"uuid":"c","name":"n","chat_messages":[{"uuid":"m","sender":"human","text":"hi","parent_message_uuid":"00000000-0000-4000-8000-000000000000"}],"current_leaf_message_uuid":"m"},{"uuid":"d"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		convs, err := formats.ImportAll(data, formats.Auto)
		if err != nil {
			var e *core.Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not a *core.Error: %v", err)
			}
			return
		}
		for i, c := range convs {
			if c.Tree == nil {
				t.Fatalf("conversation %d has no tree", i)
			}
			if ps := c.Tree.Validate(); len(ps) > 0 {
				t.Fatalf("conversation %d: %v", i, ps)
			}
		}
	})
}
