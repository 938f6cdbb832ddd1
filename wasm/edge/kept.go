package edge

// Kept holds what an isolate keeps of the objects it serves (each one tree's
// Handler with its loaded tree), by name, within a count and a byte budget:
// when either is passed, the least recently used go first. The one just used
// is never dropped, however large: it is being served. A value dropped here is
// made again (its tree read again from its storage) on its next use. It is
// not safe for concurrent use (the worker's objects run one at a time).
type Kept[T any] struct {
	max     int
	budget  int64 // 0: no byte bound
	bytes   int64
	clock   int64
	entries map[string]*keptEntry[T]
}

type keptEntry[T any] struct {
	v     T
	bytes int64
	used  int64
}

// NewKept returns a Kept of at most max values and, if budget > 0, at most
// budget bytes of them (as Sized says).
func NewKept[T any](max int, budget int64) *Kept[T] {
	return &Kept[T]{max: max, budget: budget, entries: map[string]*keptEntry[T]{}}
}

// Get returns the value kept under name, marking it used.
func (k *Kept[T]) Get(name string) (T, bool) {
	e := k.entries[name]
	if e == nil {
		var zero T
		return zero, false
	}
	k.clock++
	e.used = k.clock
	return e.v, true
}

// Put keeps v under name (of 0 bytes until Sized), marked used, and drops
// the least recently used others while more than max are kept.
func (k *Kept[T]) Put(name string, v T) {
	k.Delete(name)
	k.clock++
	k.entries[name] = &keptEntry[T]{v: v, used: k.clock}
	k.trim(name)
}

// Sized sets the bytes of name's value and drops the least recently used
// others while the total is over the budget.
func (k *Kept[T]) Sized(name string, bytes int64) {
	e := k.entries[name]
	if e == nil {
		return
	}
	k.bytes += bytes - e.bytes
	e.bytes = bytes
	k.trim(name)
}

// MakeRoom drops the least recently used values but keep's until extra
// more bytes fit in the budget (a large write about to run for keep: its
// working set and the others' kept trees must fit in one isolate).
func (k *Kept[T]) MakeRoom(keep string, extra int64) {
	if k.budget <= 0 || extra <= 0 {
		return
	}
	k.bytes += extra
	k.trim(keep)
	k.bytes -= extra
}

// Delete forgets name.
func (k *Kept[T]) Delete(name string) {
	if e := k.entries[name]; e != nil {
		k.bytes -= e.bytes
		delete(k.entries, name)
	}
}

// Len is the number of values kept, and Bytes their bytes.
func (k *Kept[T]) Len() int     { return len(k.entries) }
func (k *Kept[T]) Bytes() int64 { return k.bytes }

// trim drops the least recently used values but keep's while over max or
// over the budget.
func (k *Kept[T]) trim(keep string) {
	for len(k.entries) > k.max || k.budget > 0 && k.bytes > k.budget {
		oldest := ""
		var at int64
		for name, e := range k.entries {
			if name != keep && (oldest == "" || e.used < at) {
				oldest, at = name, e.used
			}
		}
		if oldest == "" {
			return
		}
		k.Delete(oldest)
	}
}
