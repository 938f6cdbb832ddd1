//go:build js && wasm

// Command trivial is the floor of the worker benchmark: a syumai/workers
// program that answers every request with a fixed JSON body, built and served
// like the real worker (one instance per isolate, the body handed over whole).
package main

import (
	"net/http"
	"syscall/js"

	"github.com/syumai/workers"
)

// rawBodyWriter is syumai/workers' ResponseWriter taking a finished JS body.
type rawBodyWriter interface{ WriteRawJSBody(body js.Value) }

func main() {
	body := []byte(`{"ok":true}` + "\n")
	workers.ServeNonBlock(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		arr := js.Global().Get("Uint8Array").New(len(body))
		js.CopyBytesToJS(arr, body)
		w.(rawBodyWriter).WriteRawJSBody(arr)
	}))
	workers.Ready()
	select {}
}
