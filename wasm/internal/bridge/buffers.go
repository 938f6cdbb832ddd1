package bridge

// input is where JavaScript writes a call's arguments; output holds the last
// call's result until the next call. Both stay referenced from these globals, so
// the (non-moving) Go collector keeps their addresses valid for JavaScript.
var input, output []byte

// bigInput is the size above which the input buffer is released after a call,
// so one large load does not pin its bytes for the life of the page. The JS
// side knows it too (BIG_INPUT in js/sessiontree.js).
const bigInput = 4 << 20

// Reserve grows the input buffer to at least n bytes and returns it, whole.
// Tests write a call's arguments into it as JavaScript does.
func Reserve(n int) []byte {
	if n < 256 {
		n = 256
	}
	if cap(input) < n {
		input = make([]byte, n)
	}
	input = input[:cap(input)]
	return input
}

// releaseBig drops an input buffer that a large call grew.
func releaseBig() {
	if cap(input) > bigInput {
		input = nil
	}
}
