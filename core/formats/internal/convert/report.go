// Package convert holds what every interchange format shares: the import
// Report, a tree builder that tolerates out-of-order and dangling records, the
// "sessiontree" extension fields that let a format carry what it has no field
// for, JSON object editing, JSONL line reading and timestamp conversion.
package convert

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Report is what an import found: counts, what the format could not carry, and
// every record it could not read, each with its line number or id.
type Report struct {
	Format   string
	Records  int // records read: lines of a JSONL file, mapping entries, messages
	Nodes    int // nodes in the tree
	Roots    int // parentless nodes
	Branches int // branches in the tree
	// NotCarried lists what the format has no place for and how it was handled
	// (folded into a neighbour, dropped with a note, …), one sentence each.
	NotCarried []string
	// Problems lists every record that could not be read as it was written.
	Problems []Problem

	keyNotes int // members dropped by KeepLastKeys so far
}

// Problem is one record an import could not read as written: a malformed or
// torn line, a dangling parent, a duplicate id. What was kept is in Message.
type Problem struct {
	Line    int    // 1-based line of a JSONL file; 0 when not line-based
	ID      string // the record's id, when it has one
	Message string
}

// String renders p as "line N: …" or "id X: …".
func (p Problem) String() string {
	switch {
	case p.Line > 0 && p.ID != "":
		return "line " + strconv.Itoa(p.Line) + " (" + p.ID + "): " + p.Message
	case p.Line > 0:
		return "line " + strconv.Itoa(p.Line) + ": " + p.Message
	case p.ID != "":
		return "id " + strconv.Quote(p.ID) + ": " + p.Message
	}
	return p.Message
}

// Problemf records a problem.
func (r *Report) Problemf(line int, id, msg string) {
	r.Problems = append(r.Problems, Problem{Line: line, ID: strings.Clone(id), Message: msg})
}

// Note records something the format could not carry, once per distinct text.
func (r *Report) Note(msg string) {
	for _, s := range r.NotCarried {
		if s == msg {
			return
		}
	}
	r.NotCarried = append(r.NotCarried, msg)
}

// Counted records a count-bearing note: "N <what>" once the import is done.
type Counted struct {
	n    map[string]int
	one  map[string]string // the note's words for a count of 1, by its words for more
	keys []string
}

// Add counts one occurrence of a thing, said as one ("1 entry of another
// type kept with the entry before it") or as many ("2 entries of other
// types kept with the entry before them").
func (c *Counted) Add(one, many string) {
	if c.n == nil {
		c.n = make(map[string]int)
		c.one = make(map[string]string)
	}
	if c.n[many] == 0 {
		c.keys = append(c.keys, many)
		c.one[many] = one
	}
	c.n[many]++
}

// Flush writes every count into r as a note "N <what>".
func (c *Counted) Flush(r *Report) {
	for _, k := range c.keys {
		if c.n[k] == 1 {
			r.Note("1 " + c.one[k])
			continue
		}
		r.Note(strconv.Itoa(c.n[k]) + " " + k)
	}
	c.n, c.one, c.keys = nil, nil, nil
}

// maxKeyNotes bounds the duplicate-key problems one import lists one by one.
const maxKeyNotes = 100

// KeepLastKeys returns the valid JSON value v as JSON.parse reads it: where an
// object names a key twice, only the last member of that key is kept (see
// rawjson.KeepLastKeys), so the tree holds the meaning the tool that wrote
// the file shows. Each member dropped is listed as a problem of line (0 for a
// file that is not line-based), the first maxKeyNotes of them one by one.
func (r *Report) KeepLastKeys(line int, v []byte) []byte {
	out, dropped, err := rawjson.KeepLastKeys(v)
	if err != nil || len(dropped) == 0 {
		return v
	}
	for _, d := range dropped {
		r.keyNotes++
		switch {
		case r.keyNotes <= maxKeyNotes:
			r.Problemf(line, "", "the key "+strconv.Quote(d.Key)+" is named twice (at "+d.Where()+"): kept the last value, as JSON.parse reads it")
		case r.keyNotes == maxKeyNotes+1:
			r.Problemf(line, "", "more keys named twice: each kept its last value, as JSON.parse reads it")
		}
	}
	return out
}
