package core

import (
	"errors"
	"strconv"
	"testing"
)

// counterIDs returns a deterministic id source: n1, n2, …
func counterIDs() Option {
	n := 0
	return WithIDSource(func() string {
		n++
		return "n" + strconv.Itoa(n)
	})
}

func msg(role, content string) Message {
	return Message(`{"role":` + strconv.Quote(role) + `,"content":` + strconv.Quote(content) + `}`)
}

func mustAppend(t testing.TB, tr *Tree, m Message, at int64) string {
	t.Helper()
	id, err := tr.Append(m, at)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return id
}

func wantCode(t testing.TB, err error, code Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("want error %s, got nil", code)
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("want error %s, got %v", code, err)
	}
}

func mustPath(t testing.TB, tr *Tree, branch string) []string {
	t.Helper()
	p, err := tr.PathOf(branch)
	if err != nil {
		t.Fatalf("PathOf(%q): %v", branch, err)
	}
	return p
}

func contents(t testing.TB, msgs []Message) []string {
	t.Helper()
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Text()
	}
	return out
}

// chain builds a tree with one message per content string on main.
func chain(t testing.TB, texts ...string) (*Tree, []string) {
	t.Helper()
	tr := New(counterIDs())
	var ids []string
	for i, s := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		ids = append(ids, mustAppend(t, tr, msg(role, s), int64(i+1)))
	}
	return tr, ids
}
