package formattest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/internal/corpus"
)

// SharedDir is the folder of the outside corpora (corpus.Dir).
func SharedDir() string { return corpus.Dir() }

// CorpusFiles lists the files of folder dir of both corpora (interop/dir and
// testdata/dir), failing t when there are none.
func CorpusFiles(t *testing.T, dir string) []string {
	t.Helper()
	return corpus.Files(t, "interop/"+dir, "testdata/"+dir)
}

var clock = regexp.MustCompile(`,"used":\d+`)

// Same compares trees by their .tree.json but for the branches' "used"
// clock, which no format carries (see core/formats/roundtrip_test.go).
func Same(a, b *core.Tree) bool {
	return clock.ReplaceAllString(string(a.Marshal()), "") == clock.ReplaceAllString(string(b.Marshal()), "")
}

// Structure checks tr against the parents a file gives (node id → parent id,
// "" for a root) and its active leaf.
func Structure(t *testing.T, name string, tr *core.Tree, parents map[string]string, leaf string) {
	t.Helper()
	if tr.Len() != len(parents) {
		t.Errorf("%s: %d nodes, the file has %d messages", name, tr.Len(), len(parents))
	}
	var wrong []string
	for id, p := range parents {
		n, ok := tr.Node(id)
		if !ok || n.Parent != p {
			wrong = append(wrong, id+" under "+n.Parent+", file: "+p)
		}
	}
	if len(wrong) > 0 {
		t.Errorf("%s: %d nodes not where the file puts them, e.g. %s", name, len(wrong), strings.Join(wrong[:min(3, len(wrong))], "; "))
	}
	path, err := tr.ActivePath()
	if err != nil || (leaf != "" && (len(path) == 0 || path[len(path)-1] != leaf)) {
		t.Errorf("%s: active path %v (%v), the file's active leaf is %s", name, tail(path), err, leaf)
	}
}

func tail(p []string) []string {
	if len(p) > 3 {
		return p[len(p)-3:]
	}
	return p
}
