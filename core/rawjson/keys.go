package rawjson

import "strconv"

// Duplicate keys. RFC 8259 leaves an object whose key repeats open to any
// reading; JSON.parse keeps the last member's value, and a reader that looks a
// key up from the front (Lookup) finds the first. Where a value is read by both
// — a message shown by a JavaScript page and sent to a model from Go — the two
// readings differ, so a value that enters a tree is checked with the functions
// here (CompactUnique, RawUnique), and one read from another tool's file is
// made to mean what JSON.parse reads (KeepLastKeys).

// DuplicateKeyError reports an object that names a key twice.
type DuplicateKeyError struct {
	Offset int    // where the second member's key starts, from the value's start
	Key    string // the key, unescaped
	Path   string // where the object is, from the value's root: "", ".content[0]", …
}

func (e *DuplicateKeyError) Error() string {
	return "the key " + string(AppendString(nil, e.Key)) + " is named twice (at " + e.Where() + ")"
}

// Where is the repeated member's path from the value's root, "$" standing for
// the root: "$.role", "$.content[0].text".
func (e *DuplicateKeyError) Where() string { return "$" + e.Path + pathKey(e.Key) }

// CompactUnique is Compact that also refuses an object naming a key twice, at
// any depth, with a *DuplicateKeyError. Keys are compared as JSON.parse
// compares them: after unescaping, so "role" and "r\u006fle" are one key.
func CompactUnique(dst, data []byte) ([]byte, error) { return compact(dst, data, &keyTracker{}) }

// RawUnique is Raw that refuses an object naming a key twice, at any depth,
// with a *DuplicateKeyError (its Path from the value's root).
func (d *Decoder) RawUnique() ([]byte, error) { return new(Keys).Raw(d) }

// Keys checks values for keys named twice, keeping its lists from one value
// to the next: a loader that checks every message of a file with one Keys
// allocates nothing for it. The zero Keys is ready to use.
type Keys struct{ kt keyTracker }

func (k *Keys) reset() *keyTracker {
	kt := &k.kt
	if cap(kt.keys) > 4096 || cap(kt.frames) > 1024 {
		*kt = keyTracker{} // not kept past an ordinary value's size
	}
	kt.keys, kt.frames, kt.drop, kt.dup = kt.keys[:0], kt.frames[:0], kt.drop[:0], nil
	return kt
}

// Raw is Decoder.RawUnique.
func (k *Keys) Raw(d *Decoder) ([]byte, error) {
	start := skipSpace(d.data, d.pos)
	kt := k.reset()
	end, spaced, err := scanValue(d.data, start, kt)
	if err != nil {
		return nil, kt.located(d.data, start, err)
	}
	d.pos = end
	if !spaced {
		return d.data[start:end:end], nil
	}
	return appendCompact(nil, d.data[start:end]), nil
}

// CompactUnique is the package's CompactUnique with k's lists.
func (k *Keys) CompactUnique(dst, data []byte) ([]byte, error) { return compact(dst, data, k.reset()) }

// CompactValue is the package's CompactValue (fast.go) that also says no to
// a value naming a key twice (Raw then reports it).
func (k *Keys) CompactValue(data []byte, i int) (end int, ok bool) {
	end, spaced, err := scanValue(data, i, k.reset())
	return end, err == nil && !spaced
}

// Dropped is one member KeepLastKeys removed: a key named again later in its
// object.
type Dropped struct {
	Offset int    // where the removed member's key started in the input
	Key    string // the key, unescaped
	Path   string // the object's path from the value's root, as in DuplicateKeyError
}

// Where is the removed member's path, as DuplicateKeyError's Where.
func (d Dropped) Where() string { return "$" + d.Path + pathKey(d.Key) }

// KeepLastKeys returns the valid JSON value v with every member whose key its
// object names again later removed, at any depth, so that each key is left
// once with its last value: the object JSON.parse makes of v (the key now
// stands where its last member stood). It returns v itself, and no Dropped,
// when no key repeats; an invalid v is returned as it is, with its error.
func KeepLastKeys(v []byte) ([]byte, []Dropped, error) {
	start := skipSpace(v, 0)
	kt := &keyTracker{collect: true}
	end, _, err := scanValue(v, start, kt)
	if err == nil && skipSpace(v, end) != len(v) {
		err = errAt(skipSpace(v, end), "unexpected data after the JSON value")
	}
	if err != nil || len(kt.drop) == 0 {
		return v, nil, err
	}
	// An inner object's member is found before the outer member that holds it.
	sortRanges(kt.drop)
	out := make([]byte, 0, len(v))
	from := 0
	var dropped []Dropped
	for _, r := range kt.drop {
		if r.start < from { // inside a member already dropped
			continue
		}
		out = append(out, v[from:r.start]...)
		from = r.end
		key := v[r.start:skipValid(v, r.start)]
		dropped = append(dropped, Dropped{Offset: r.start, Key: Unquote(key), Path: pathTo(v, start, r.start)})
	}
	return append(out, v[from:]...), dropped, nil
}

// keyTracker remembers the keys of the objects scanValue has open, to find a
// key named twice in one object. A small object compares a new key with its
// earlier ones; one past setAt keys keeps them in a map as well, so no object
// costs more than linear time.
type keyTracker struct {
	keys    []keySpan
	frames  []keyFrame
	collect bool        // record members to drop (KeepLastKeys) instead of failing
	drop    []byteRange // with collect: members named again later, in input order
	dup     *DuplicateKeyError
}

const setAt = 16

type keySpan struct {
	start, end int  // the key's literal, quotes included
	escaped    bool // it has a backslash, so compare it unescaped
}

type keyFrame struct {
	base int            // the frame's first key in keys
	set  map[string]int // past setAt keys: unescaped key -> its latest index in keys
}

type byteRange struct{ start, end int }

func (kt *keyTracker) open() { kt.frames = append(kt.frames, keyFrame{base: len(kt.keys)}) }

func (kt *keyTracker) close() {
	f := kt.frames[len(kt.frames)-1]
	kt.keys = kt.keys[:f.base]
	kt.frames = kt.frames[:len(kt.frames)-1]
}

// key takes the key literal that starts at data[i] (already validated) in the
// innermost open object.
func (kt *keyTracker) key(data []byte, i int) error {
	end := i + 1
	escaped := false
	for data[end] != '"' {
		if data[end] == '\\' {
			escaped = true
			end++
		}
		end++
	}
	end++
	k := keySpan{start: i, end: end, escaped: escaped}
	f := &kt.frames[len(kt.frames)-1]
	earlier := -1
	if f.set != nil {
		name := Unquote(data[i:end])
		if at, ok := f.set[name]; ok {
			earlier = at
		}
		f.set[name] = len(kt.keys)
	} else {
		// From the latest back: the member a repeated key replaces is the last
		// one of that name (which, with collect, was not dropped yet).
		for j := len(kt.keys) - 1; j >= f.base; j-- {
			if sameKey(data, kt.keys[j], k) {
				earlier = j
				break
			}
		}
		if len(kt.keys)-f.base+1 > setAt {
			f.set = make(map[string]int, 2*setAt)
			for j := f.base; j < len(kt.keys); j++ {
				f.set[Unquote(data[kt.keys[j].start:kt.keys[j].end])] = j
			}
			f.set[Unquote(data[i:end])] = len(kt.keys)
		}
	}
	if earlier >= 0 {
		if !kt.collect {
			kt.dup = &DuplicateKeyError{Offset: i, Key: Unquote(data[i:end])}
			return kt.dup
		}
		// The earlier member runs from its key to the next key of this object:
		// the one after it, or this one.
		next := i
		if earlier+1 < len(kt.keys) {
			next = kt.keys[earlier+1].start
		}
		kt.drop = append(kt.drop, byteRange{kt.keys[earlier].start, next})
	}
	kt.keys = append(kt.keys, k)
	return nil
}

func sameKey(data []byte, a, b keySpan) bool {
	if !a.escaped && !b.escaped {
		return string(data[a.start:a.end]) == string(data[b.start:b.end])
	}
	return Unquote(data[a.start:a.end]) == Unquote(data[b.start:b.end])
}

// located fills in the path of the duplicate key err reports, if it is one.
func (kt *keyTracker) located(data []byte, start int, err error) error {
	if kt.dup != nil && err == error(kt.dup) {
		kt.dup.Path = pathTo(data, start, kt.dup.Offset)
		kt.dup.Offset -= start
	}
	return err
}

// pathTo names the object that holds the member whose key starts at off, from
// the value at data[start]: "" for the root, ".content[0]", `["a b"]`. data is
// valid up to off; the walk only skips over complete values before it.
func pathTo(data []byte, start, off int) string {
	path := ""
	i := start
	for steps := 0; steps <= MaxDepth; steps++ {
		i = skipSpace(data, i)
		if i >= len(data) || (data[i] != '{' && data[i] != '[') {
			return path
		}
		obj := data[i] == '{'
		i = skipSpace(data, i+1)
		for n := 0; i < len(data); n++ {
			var name string
			if obj {
				if i == off {
					return path
				}
				kEnd := skipValid(data, i)
				name = pathKey(Unquote(data[i:kEnd]))
				i = skipSpace(data, kEnd)
				i = skipSpace(data, i+1) // ':'
			} else {
				name = "[" + strconv.Itoa(n) + "]"
			}
			vEnd := skipValid(data, i)
			if off >= i && off < vEnd {
				path += name
				break
			}
			i = skipSpace(data, vEnd)
			if i >= len(data) || data[i] != ',' {
				return path
			}
			i = skipSpace(data, i+1)
		}
	}
	return path
}

// pathKey writes a key as a path step: ".name" for an identifier, else
// `["…"]`.
func pathKey(k string) string {
	plain := k != ""
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return "." + k
	}
	return "[" + string(AppendString(nil, k)) + "]"
}

// sortRanges sorts r by start: a heap sort, not a generic sort's instantiation
// (module size).
func sortRanges(r []byteRange) {
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && r[c+1].start > r[c].start {
				c++
			}
			if r[i].start >= r[c].start {
				return
			}
			r[i], r[c] = r[c], r[i]
			i = c
		}
	}
	for i := len(r)/2 - 1; i >= 0; i-- {
		down(i, len(r))
	}
	for n := len(r) - 1; n > 0; n-- {
		r[0], r[n] = r[n], r[0]
		down(0, n)
	}
}
