package convert

import (
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func scanLine(line []byte) LineScan {
	var l LineScan
	EachMember(line, func(key, v []byte) bool {
		l.Member(key, v)
		return true
	})
	return l
}

// A line LineScan calls simple derives, by DeriveLine, byte for byte what
// Folded builds from it.
func TestSimpleLinesDeriveWhatFoldedBuilds(t *testing.T) {
	line := []byte(`{"uuid":"u1","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}`)
	l := scanLine(line)
	if !l.Simple() {
		t.Fatal("a message object with a string role is not simple")
	}
	msg, label, at, err := DeriveLine(line, "k", nil)
	if err != nil || label != "" || at != 1735689601000 {
		t.Fatalf("DeriveLine: label %q at %d err %v", label, at, err)
	}
	if got := Folded(nil, line, l.Message, "k"); string(got) != string(msg) {
		t.Fatalf("Folded %s, DeriveLine %s", got, msg)
	}
}

// A line with no message object, with a role that is not a string, with a
// "sessiontree" member or an escaped key is not simple.
func TestLinesTheFastPathCannotTakeAreNotSimple(t *testing.T) {
	for _, line := range []string{
		`{"uuid":"u1","content":"x"}`,
		`{"uuid":"u1","message":"x"}`,
		`{"uuid":"u1","message":{"role":1}}`,
		`{"uuid":"u1","message":{"role":"user"},"sessiontree":{}}`,
		`{"uuid":"u1","message":{"role":"user"},"\u0074ype":"user"}`,
	} {
		if l := scanLine([]byte(line)); l.Simple() {
			t.Errorf("%s is simple", line)
		}
	}
}

// A line without a message object is left to the format; a message without a
// string role is invalid input.
func TestDeriveLineLeavesOtherLinesToTheFormat(t *testing.T) {
	msg, _, _, err := DeriveLine([]byte(`{"content":"c"}`), "k", func(base []Member) (core.Message, error) {
		return Wrap("system", Str(base, "content"), "k", NewObject(nil).Members(base).Bytes()), nil
	})
	if err != nil || msg.Role() != "system" || msg.Text() != "c" {
		t.Fatalf("msg %s err %v", msg, err)
	}
	if _, _, _, err := DeriveLine([]byte(`{"message":{"role":1}}`), "k", nil); err == nil {
		t.Fatal("a message without a string role derived")
	}
}

// OwnLine gives the kept line back with its message in place only while its
// id and parent still fit the node.
func TestOwnLineOnlyWhileItFitsTheNode(t *testing.T) {
	msg := core.Message(`{"role":"user","content":"hi","k":{"id":"a","parent":"p","message":0}}`)
	if got := OwnLine(core.Node{ID: "a", Parent: "p"}, msg, "k", "id", "parent"); string(got) != `{"id":"a","parent":"p","message":{"role":"user","content":"hi"}}` {
		t.Fatalf("OwnLine %s", got)
	}
	if got := OwnLine(core.Node{ID: "a", Parent: "q"}, msg, "k", "id", "parent"); got != nil {
		t.Fatalf("OwnLine of a moved node %s", got)
	}
	if got := OwnLine(core.Node{ID: "b"}, msg, "k", "id", "parent"); got != nil {
		t.Fatalf("OwnLine of another id %s", got)
	}
}
