//go:build js && wasm

package main

import (
	"net/http"
	"syscall/js"
)

// rawBodyWriter is implemented by syumai/workers' ResponseWriter: a body given
// as a JS value is sent as is, instead of being streamed out of Go.
type rawBodyWriter interface {
	WriteRawJSBody(body js.Value)
}

// bufferedWriter holds the body until the handler returns, so the Response
// handed to the runtime is complete: nothing of this request runs in Go after
// it, which glue/isolate.mjs relies on to hand the instance to the next one.
type bufferedWriter struct {
	http.ResponseWriter
	body []byte
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.body = append(b.body, p...)
	return len(p), nil
}

// finish sends the buffered body.
func (b *bufferedWriter) finish() {
	if len(b.body) == 0 {
		return
	}
	if rw, ok := b.ResponseWriter.(rawBodyWriter); ok {
		arr := js.Global().Get("Uint8Array").New(len(b.body))
		js.CopyBytesToJS(arr, b.body)
		rw.WriteRawJSBody(arr)
		return
	}
	b.ResponseWriter.Write(b.body)
}
