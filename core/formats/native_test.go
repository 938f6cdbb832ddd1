package formats

import (
	"bytes"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func TestAutoRecognisesTheLibrarysOwnTreeJSON(t *testing.T) {
	tr := core.New()
	id, _ := tr.Append(core.Message(`{"role":"user","content":"hi"}`), 1)
	tr.Rewind(id, 2)
	data := tr.Marshal()
	if got := Detect(data); got != SessionTree {
		t.Fatalf("Detect = %q", got)
	}
	back, rep, err := Import(Auto, data)
	if err != nil || rep.Format != SessionTree || rep.Nodes != 1 || len(rep.Problems) != 0 {
		t.Fatalf("%v %+v", err, rep)
	}
	out, err := Export(back, SessionTree)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("export differs: %v", err)
	}
}

func TestImportOfACorruptTreeJSONListsItsProblems(t *testing.T) {
	data := []byte(`{"format":"sessiontree","version":1,"active_branch":"main","branches":{"main":{"name":"main","leaf":"zz","created_at_ms":0}},"nodes":{}}`)
	_, rep, err := Import(Auto, data)
	if err != nil || len(rep.Problems) == 0 {
		t.Fatalf("%v %+v", err, rep)
	}
}
