package proftmp

import (
	"os"
	"testing"

	"github.com/sessiontree/sessiontree/core/formats"
)

func TestImportWhole(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("FILE"))
	if err != nil {
		t.Fatal(err)
	}
	n, size := 0, 0
	err = formats.ImportEach(data, "auto", func(cv formats.Conversation, _ int) {
		n++
		size += len(cv.Tree.Marshal())
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d conversations, %d MB of trees", n, size>>20)
}
