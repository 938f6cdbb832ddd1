//go:build js && wasm && !stock

// Command worker is the sessiontree edge worker: the HTTP API of package edge,
// served over trees kept in Durable Objects, with the tenants' index of trees
// in Cloudflare D1.
//
// glue/isolate.mjs starts it twice per isolate, and each instance keeps
// serving once started. The objects' instance (SESSIONTREE_ROLE=object in its
// environment) routes every request synchronously (globalThis.sessiontreeRoute)
// and serves each tree's object over that object's SQLite storage
// (object.go). The router's instance serves the tree list from D1
// (globalThis.sessiontreeList). Neither imports net/http (see wasm/edge's
// http.go): the glue hands Go a request's method, URL, header pairs and body,
// and takes back {status, headers, body}.
//
// Built with -tags stock (main_stock.go) it is a stock github.com/syumai/workers
// program instead (one Go instance per request, every tree in D1 rows), for
// the benchmark that compares the two.
package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/hack-pad/safejs"
	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/internal/collector"
)

// ready tells the glue that the instance has registered its functions (the
// import the glue provides as workers.ready).
//
//go:wasmimport workers ready
func ready()

func main() {
	funcs := map[string]func(safejs.Value, []safejs.Value) any{"sessiontreeList": serveList}
	if os.Getenv("SESSIONTREE_ROLE") == "object" {
		// SESSIONTREE_GC_HOLD_BYTES: how far the heap may grow while a long
		// call holds the collector (0: never held; collector.Cap).
		if v, err := strconv.ParseInt(strings.TrimSpace(os.Getenv("SESSIONTREE_GC_HOLD_BYTES")), 10, 64); err == nil && v >= 0 {
			collector.Cap = v
		}
		funcs = map[string]func(safejs.Value, []safejs.Value) any{
			"sessiontreeObject":      serveObject,
			"sessiontreeRoute":       serveRoute,
			"sessiontreeResume":      serveResume,
			"sessiontreeObjectBatch": serveObjectBatch,
			"sessiontreeMigrate":     serveMigrate,
			"sessiontreePace":        servePace,
		}
	}
	for name, f := range funcs {
		fn, err := safejs.FuncOf(f)
		if err == nil {
			err = safejs.Global().Set(name, fn)
		}
		if err != nil {
			os.Stderr.WriteString("sessiontree worker: " + err.Error() + "\n")
			os.Exit(1)
		}
	}
	ready()
	select {}
}

// The router's instance: the tree list, read from D1. The glue lets one
// request at a time into this instance (its D1 calls are tied to the request
// that made them), so listEnv is the env of the request being served.
var (
	list     *edge.Handler
	listConf string
	listEnv  safejs.Value
)

// envText is the worker's variable name in env, or "" when it is not a string.
func envText(env safejs.Value, name string) string {
	v, err := env.Get(name)
	if err != nil {
		return ""
	}
	s, _ := v.String()
	return s
}

// listBinding is the binding name of the request being served (D1's DB).
func listBinding(name string) safejs.Value {
	v, err := listEnv.Get(name)
	if err != nil {
		return safejs.Undefined()
	}
	return v
}

// serveList is globalThis.sessiontreeList(env, method, url, headers ("name\nvalue\n…", jsread.Pack; or [[k, v]…]),
// body) → a Promise of {status, headers, body}: the request served by the
// router's Handler over D1. It always resolves; a failure is a 500 answer.
func serveList(_ safejs.Value, args []safejs.Value) any {
	run := func() any {
		if len(args) != 5 {
			return internalAnswer(errString("sessiontreeList takes 5 arguments"))
		}
		req, err := requestOf(args[1], args[2], args[3], args[4])
		if err != nil {
			return internalAnswer(err)
		}
		listEnv = args[0]
		key, cors, rate := envText(listEnv, "SESSIONTREE_SIGNING_KEY"), envText(listEnv, "SESSIONTREE_CORS_ORIGINS"),
			envText(listEnv, "SESSIONTREE_RATE_LIMIT")
		if c := strings.Join([]string{key, cors, rate}, "\x00"); list == nil || listConf != c {
			list = edge.New(routerConfig(&d1Store{binding: listBinding}, edge.RoleRouter, key, cors, rate))
			listConf = c
		}
		w := edge.NewRecorder()
		list.Serve(w, req)
		res, err := answer(w.Status(), w.Header(), w.Bytes(), nil, nil)
		if err != nil {
			return internalAnswer(err)
		}
		return res
	}
	executor, err := safejs.FuncOf(func(_ safejs.Value, fns []safejs.Value) any {
		resolve := fns[0]
		// D1's promises settle on the event loop: the request is served in
		// a goroutine, which waits for them while this call returns.
		go func() { _, _ = resolve.Invoke(run()) }()
		return nil
	})
	if err != nil {
		return internalAnswer(err)
	}
	defer executor.Release()
	ctor, err := safejs.Global().Get("Promise")
	if err != nil {
		return internalAnswer(err)
	}
	p, err := ctor.New(executor)
	if err != nil {
		return internalAnswer(err)
	}
	return p
}
