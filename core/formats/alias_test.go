package formats_test

import (
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

// No import keeps its input: overwriting the bytes after an import leaves the
// tree as it was, for every fixture (corpus_test.go: every shared file).
func TestImportsDoNotAliasTheirInput(t *testing.T) {
	for _, f := range fixtureNames(t) {
		checkNoAlias(t, f, fixture(t, f))
	}
}

func checkNoAlias(t *testing.T, f string, data []byte) {
	t.Helper()
	tr, _, err := formats.Import("auto", data)
	if err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	before := string(tr.Marshal())
	for i := range data {
		data[i] = ' '
	}
	if after := string(tr.Marshal()); after != before {
		t.Fatalf("%s: the tree changed with its input", f)
	}
}
