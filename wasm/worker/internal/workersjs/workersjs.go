//go:build js && wasm

// Package workersjs is the one place where the worker's code meets a js.Value
// of github.com/syumai/workers' API: the D1 binding it hands out and the
// finished JS body its ResponseWriter takes. Each is converted at this edge
// (safejs.Safe in, safejs.Unsafe out), so everything else touches JavaScript
// only through github.com/hack-pad/safejs, where a thrown exception or a value
// of the wrong type is an error, never a panic that would end the Go instance.
package workersjs

import (
	"errors"
	"net/http"
	"strconv"
	"syscall/js"

	"github.com/hack-pad/safejs"
	"github.com/syumai/workers/cloudflare"
)

// Binding returns the binding name (a D1 database, …) of the current request's
// environment, or undefined if there is none. Like cloudflare.GetBinding, it
// must run while the runtime serves a request (the glue sets that up first).
func Binding(name string) safejs.Value {
	return safejs.Safe(cloudflare.GetBinding(name))
}

// rawBodyWriter is implemented by syumai/workers' ResponseWriter: a body given
// as a JS value is sent as is, instead of being streamed out of Go.
type rawBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

// SendBody hands body to w as one finished Uint8Array, so that the Response
// the runtime receives is complete and nothing of this request runs in Go
// after the handler returns. It reports false, with nothing sent, if w is not
// syumai/workers' ResponseWriter, and an error if the array cannot be made.
func SendBody(w http.ResponseWriter, body []byte) (bool, error) {
	rw, ok := w.(rawBodyWriter)
	if !ok {
		return false, nil
	}
	ctor, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return false, err
	}
	arr, err := ctor.New(len(body))
	if err != nil {
		return false, err
	}
	n, err := safejs.CopyBytesToJS(arr, body)
	if err != nil {
		return false, err
	}
	if n != len(body) {
		return false, errors.New("a response body of " + strconv.Itoa(len(body)) + " bytes did not fit its Uint8Array")
	}
	rw.WriteRawJSBody(safejs.Unsafe(arr))
	return true, nil
}
