//go:build js && wasm && stock

package main

import (
	"net/http"
	"os"

	"github.com/sessiontree/sessiontree/wasm/worker/internal/workersjs"
)

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

// finish sends the buffered body: as one finished JS body, or, if the
// runtime's writer cannot take one (or the array cannot be made), streamed
// through the writer, which sends the same bytes.
func (b *bufferedWriter) finish() {
	if len(b.body) == 0 {
		return
	}
	sent, err := workersjs.SendBody(b.ResponseWriter, b.body)
	if sent {
		return
	}
	if err != nil {
		// Shown in the runtime's log (wrangler's console); the body still goes out.
		os.Stderr.WriteString("sessiontree worker: streaming the body instead: " + err.Error() + "\n")
	}
	// A failed write means the client is gone; there is no one left to tell.
	_, _ = b.ResponseWriter.Write(b.body)
}
