package core

import "testing"

// Search ignores case beyond ASCII.
func TestSearchFindsAccentedTextWhateverItsCase(t *testing.T) {
	tr := New()
	id, err := tr.Append(Message(`{"role":"user","content":"Der ÄRGER war groß"}`), 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"ärger", "ÄRGER", "Ärger WAR"} {
		hits := tr.Search(q, 0)
		if len(hits) != 1 || hits[0].NodeID != id {
			t.Fatalf("%q: hits %+v", q, hits)
		}
	}
}
