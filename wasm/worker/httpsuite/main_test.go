//go:build !js

// Package httpsuite tests the edge worker over HTTP against the real runtime:
// `wrangler dev` (workerd and a local D1) on a free loopback port, with a fresh
// state directory. It runs when SESSIONTREE_WORKER_DIR names the worker's
// directory with a built build/app.wasm (`make test-worker` does this), and
// skips otherwise.
package httpsuite

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/edge"
	"github.com/sessiontree/sessiontree/wasm/worker/devserver"
)

var (
	server  *devserver.Server
	options devserver.Options
	key     []byte
)

func TestMain(m *testing.M) {
	dir := os.Getenv("SESSIONTREE_WORKER_DIR")
	if dir == "" {
		fmt.Println("httpsuite: SESSIONTREE_WORKER_DIR is not set; run `make test-worker`")
		os.Exit(0)
	}
	os.Exit(run(m, dir))
}

func run(m *testing.M, dir string) int {
	state, err := os.MkdirTemp("", "sessiontree-d1-")
	if err != nil {
		fmt.Println(err)
		return 1
	}
	defer os.RemoveAll(state)
	var raw [32]byte
	rand.Read(raw[:])
	key = []byte(hex.EncodeToString(raw[:]))
	options = devserver.Options{Dir: dir, Persist: state, Nudge: true,
		Vars: map[string]string{"SESSIONTREE_SIGNING_KEY": string(key), "SESSIONTREE_CORS_ORIGINS": "https://app.example"}}
	start := time.Now()
	server, err = devserver.Start(options)
	if err != nil {
		fmt.Println("httpsuite: starting wrangler dev:", err)
		return 1
	}
	defer func() { server.Stop() }()
	fmt.Printf("httpsuite: wrangler dev on %s (started in %v)\n", server.URL, time.Since(start).Round(time.Millisecond))
	code := m.Run()
	limited.stop()
	quota.stop()
	if code != 0 {
		fmt.Println("httpsuite: wrangler's log:\n" + server.Log())
	}
	return code
}

// token issues a token for tenant, valid for an hour.
func token(t testing.TB, tenant string) string {
	tok, err := edge.IssueToken(key, tenant, time.Now().Unix()+3600)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func startAgain() (*devserver.Server, error) { return devserver.Start(options) }

// extraServer is a worker of its own with some variables set (vars, on top
// of the suite's), started by the first test that needs it and stopped after
// the suite.
type extraServer struct {
	name string
	vars map[string]string
	once sync.Once
	srv  *devserver.Server
	err  error
	dir  string
}

func (e *extraServer) get(t *testing.T) *devserver.Server {
	e.once.Do(func() {
		if e.dir, e.err = os.MkdirTemp("", "sessiontree-"+e.name+"-"); e.err != nil {
			return
		}
		o := options
		o.Persist = e.dir
		o.Vars = maps.Clone(e.vars)
		maps.Copy(o.Vars, options.Vars)
		e.srv, e.err = devserver.Start(o)
	})
	if e.err != nil {
		t.Fatal(e.err)
	}
	return e.srv
}

func (e *extraServer) stop() {
	if e.srv != nil {
		e.srv.Stop()
	}
	if e.dir != "" {
		os.RemoveAll(e.dir)
	}
}
