package core

import "strings"

// sortFunc sorts s stably by cmp in O(n log n) time, with one buffer of len(s).
//
// It stands in for slices.SortFunc and slices.Sort: each of their
// instantiations links a whole pdqsort family (~18 KB of WebAssembly per
// element type), while this one small function costs ~1.5 KB per type, which
// matters for the browser module's size. Already sorted input (the common case
// for saves after a load) takes one pass.
func sortFunc[T any](s []T, cmp func(a, b T) int) {
	n := len(s)
	sorted := true
	for i := 1; i < n; i++ {
		if i%sortWork == 0 {
			tick()
		}
		if cmp(s[i-1], s[i]) > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	const run = 12
	// A sort of 100,000 ids took ~0.2 s of the worker's thread in one
	// piece: it counts as a tick per sortWork elements it moves, so a host
	// that set a yield function gets its turns meanwhile.
	moved := 0
	for lo := 0; lo < n; lo += run {
		if moved += run; moved >= sortWork {
			tickWork(moved / sortWork)
			moved %= sortWork
		}
		hi := min(lo+run, n)
		for i := lo + 1; i < hi; i++ {
			for j := i; j > lo && cmp(s[j-1], s[j]) > 0; j-- {
				s[j-1], s[j] = s[j], s[j-1]
			}
		}
	}
	if n <= run {
		return
	}
	src, dst := s, make([]T, n)
	for width := run; width < n; width *= 2 {
		for lo := 0; lo < n; lo += 2 * width {
			mid, hi := min(lo+width, n), min(lo+2*width, n)
			// A tick per sortWork elements merged, inside the merge: the
			// last passes merge the whole list, 100,000 elements that
			// were one 5-9 ms slice of the worker (issue 25).
			i, j, k := lo, mid, lo
			for i < mid && j < hi {
				if moved++; moved == sortWork {
					tick()
					moved = 0
				}
				if cmp(src[j], src[i]) < 0 {
					dst[k] = src[j]
					j++
				} else {
					dst[k] = src[i]
					i++
				}
				k++
			}
			k += copy(dst[k:], src[i:mid])
			copy(dst[k:], src[j:hi])
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// sortWork is how many elements a sort moves per tick: a move is far cheaper
// than the work on a node a tick usually stands for.
const sortWork = 64

// sortStrings sorts s in byte order.
func sortStrings(s []string) { sortFunc(s, strings.Compare) }
