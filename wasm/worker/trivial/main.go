//go:build js && wasm

// Command trivial is the floor of the worker benchmark: a syumai/workers
// program that answers every request with a fixed JSON body, built and served
// like the real worker (one instance per isolate, the body handed over whole
// through the same safejs edge).
package main

import (
	"net/http"

	"github.com/sessiontree/sessiontree/wasm/worker/internal/workersjs"
	"github.com/syumai/workers"
)

func main() {
	body := []byte(`{"ok":true}` + "\n")
	workers.ServeNonBlock(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		sent, err := workersjs.SendBody(w, body)
		switch {
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		case !sent:
			_, _ = w.Write(body)
		}
	}))
	workers.Ready()
	select {}
}
