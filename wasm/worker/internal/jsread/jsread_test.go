//go:build js && wasm

package jsread

import (
	"strings"
	"testing"
	"time"

	"github.com/hack-pad/safejs"
)

// eval runs the JS expression src and returns its value.
func eval(t *testing.T, src string) safejs.Value {
	t.Helper()
	ctor, err := safejs.Global().Get("Function")
	if err != nil {
		t.Fatal(err)
	}
	fn, err := ctor.New("return (" + src + ");")
	if err != nil {
		t.Fatalf("compile %s: %v", src, err)
	}
	v, err := fn.Invoke()
	if err != nil {
		t.Fatalf("run %s: %v", src, err)
	}
	return v
}

func TestAwaitReturnsWhatThePromiseResolvesTo(t *testing.T) {
	v, err := Await(eval(t, `Promise.resolve({n: 7})`), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Number(v, "n")
	if err != nil || n != 7 {
		t.Fatalf("got %v, %v; want 7", n, err)
	}
}

// A rejection, whatever its reason, is an error with a readable message and
// never a panic: with syscall/js, reading .message of undefined or of a string
// panicked inside the callback and ended the Go instance.
func TestARejectionWithAnyReasonIsAnErrorNotAPanic(t *testing.T) {
	for _, tc := range []struct{ reason, want string }{
		{`new Error("D1_ERROR: no such table: trees")`, "D1_ERROR: no such table: trees"},
		{`"a plain string"`, "a plain string"},
		{`{message: "an object with a message"}`, "an object with a message"},
		{`42`, "promise rejected"},
		{`undefined`, "promise rejected"},
		{`null`, "promise rejected"},
		{`{toString() { throw new Error("toString throws") }}`, "promise rejected"},
		{`{message: 5, toString() { return "told by toString" }}`, "told by toString"},
		{`Object.create(null)`, "promise rejected"},
	} {
		_, err := Await(eval(t, `Promise.reject(`+tc.reason+`)`), time.Minute)
		if err == nil || err.Error() != tc.want {
			t.Errorf("reject(%s): got %v, want %q", tc.reason, err, tc.want)
		}
	}
}

func TestAwaitingSomethingThatIsNotAPromiseIsAnError(t *testing.T) {
	for _, src := range []string{`undefined`, `null`, `42`, `"text"`, `({})`, `({then: 5})`} {
		if _, err := Await(eval(t, src), time.Minute); err == nil || !strings.HasPrefix(err.Error(), "not a promise: ") {
			t.Errorf("Await(%s): got %v, want a not-a-promise error", src, err)
		}
	}
}

func TestAPromiseThatNeverSettlesEndsInAnErrorAfterTheLimit(t *testing.T) {
	_, err := Await(eval(t, `new Promise(() => {})`), time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no answer from the runtime") {
		t.Fatalf("got %v, want a no-answer error", err)
	}
}

// A D1 result of an unexpected shape is an error naming what was expected.
func TestValuesOfTheWrongTypeAreErrorsNotPanics(t *testing.T) {
	row := eval(t, `({s: "text", n: 12.5, z: null, b: true, a: [1, 2, 3]})`)
	if s, err := Text(row, "s"); err != nil || s != "text" {
		t.Errorf(`Text(s) = %q, %v`, s, err)
	}
	if s, err := Text(row, "z"); err != nil || s != "" {
		t.Errorf(`Text(z) (null) = %q, %v; want ""`, s, err)
	}
	if s, err := Text(row, "missing"); err != nil || s != "" {
		t.Errorf(`Text(missing) = %q, %v; want ""`, s, err)
	}
	if n, err := Number(row, "n"); err != nil || n != 12.5 {
		t.Errorf(`Number(n) = %v, %v`, n, err)
	}
	a, err := Field(row, "a")
	if err != nil {
		t.Fatal(err)
	}
	if items, err := Elements(a); err != nil || len(items) != 3 {
		t.Errorf("Elements(a) = %d items, %v", len(items), err)
	}
	for name, fn := range map[string]func() error{
		"Text of a number":      func() error { _, err := Text(row, "n"); return err },
		"Text of a boolean":     func() error { _, err := Text(row, "b"); return err },
		"Number of a string":    func() error { _, err := Number(row, "s"); return err },
		"Number of null":        func() error { _, err := Number(row, "z"); return err },
		"Number of missing":     func() error { _, err := Number(row, "missing"); return err },
		"Field of undefined":    func() error { _, err := Field(safejs.Undefined(), "k"); return err },
		"Field of null":         func() error { _, err := Field(safejs.Null(), "k"); return err },
		"Field of a string":     func() error { _, err := Field(eval(t, `"s"`), "k"); return err },
		"Elements of a number":  func() error { _, err := Elements(eval(t, `1`)); return err },
		"Elements of undefined": func() error { _, err := Elements(safejs.Undefined()); return err },
	} {
		if err := fn(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
