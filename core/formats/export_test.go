package formats

// SetWholeUnder sets the size under which ImportEachFrom reads a file whole,
// and returns what puts it back.
func SetWholeUnder(n int) (undo func()) {
	old := wholeUnder
	wholeUnder = n
	return func() { wholeUnder = old }
}
