// Command serve serves the demo page's folder (web/dist) on a loopback address,
// with the right content types (application/wasm for the module, so browsers
// compile it while it downloads) and gzip for clients that accept it.
//
//	go run ./web/serve -dir web/dist -addr 127.0.0.1:8080
//
// It prints "serving http://ADDR/" once it listens; -addr 127.0.0.1:0 picks a
// free port (the end-to-end test reads the line to find it).
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

func main() {
	dir := flag.String("dir", "web/dist", "the folder to serve")
	addr := flag.String("addr", "127.0.0.1:8080", "the loopback address to listen on (port 0: a free one)")
	flag.Parse()
	if err := run(*dir, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		os.Exit(1)
	}
}

func run(dir, addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("-addr %q: the demo server binds a loopback address only (127.0.0.1, ::1 or localhost)", addr)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("-dir %q is not a folder; run make demo, which builds it", dir)
	}
	h := newHandler(dir)
	if err := h.warm(); err != nil {
		return fmt.Errorf("reading %s: %w", dir, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("serving http://%s/\n", strings.Replace(ln.Addr().String(), "[::1]", "localhost", 1))
	err = http.Serve(ln, h)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
