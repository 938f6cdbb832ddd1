// Package formattest holds what the format packages' tests share: the table
// of import cases and the golden-file check.
package formattest

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Case is one import test: an input and a check of the tree it gives, with the
// report's problems and what it did not carry, each joined by "; ". An alias
// of an unnamed struct, so tables list cases positionally.
type Case = struct {
	Name  string
	Input string
	Check func(t *testing.T, tr *core.Tree, problems, notes string)
}

// Import is a format's Import.
type Import func(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error)

// RunImports runs each case as a subtest: imp must succeed and give a valid
// tree, then the case's check runs.
func RunImports(t *testing.T, imp Import, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			tr, rep, err := imp([]byte(c.Input))
			if err != nil {
				t.Fatal(err)
			}
			if ps := tr.Validate(); len(ps) > 0 {
				t.Fatalf("invalid tree: %v", ps)
			}
			var ps []string
			for _, p := range rep.Problems {
				ps = append(ps, p.String())
			}
			c.Check(t, tr, strings.Join(ps, "; "), strings.Join(rep.NotCarried, "; "))
		})
	}
}

// Golden fails t unless got is the content of the golden file at path (with
// -update, it first writes got there). Without the file (GOOS=js has no file
// system) the test is skipped.
func Golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no golden file (GOOS=js has no file system, or run with -update): %v", err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s differs (go test -update to rewrite, then read it):\n%s", path, got)
	}
}
