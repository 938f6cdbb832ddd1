package main

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// contentTypes maps the extensions the demo folder holds to their types;
// anything else is served as application/octet-stream.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json",
	".wasm": "application/wasm",
	".png":  "image/png",
	".svg":  "image/svg+xml",
	".ico":  "image/x-icon",
}

// compressible lists the types worth gzipping (images are compressed already).
var compressible = map[string]bool{".html": true, ".js": true, ".mjs": true, ".css": true, ".json": true, ".wasm": true, ".svg": true}

// handler serves the files of one folder, gzipped once per file version and
// kept in memory (the folder is small: the page, the module, a library).
type handler struct {
	dir string

	mu    sync.Mutex
	gzips map[string]gzipped
}

// gzipped is a file's compressed bytes as of its modification time and size.
type gzipped struct {
	mod  time.Time
	size int64
	body []byte
}

func newHandler(dir string) *handler {
	return &handler{dir: dir, gzips: map[string]gzipped{}}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(name, "/") {
		name += "index.html"
	}
	file := filepath.Join(h.dir, filepath.FromSlash(name))
	st, err := os.Stat(file)
	if err == nil && st.IsDir() {
		file = filepath.Join(file, "index.html")
		st, err = os.Stat(file)
	}
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ext := strings.ToLower(filepath.Ext(file))
	ctype, ok := contentTypes[ext]
	if !ok {
		ctype = "application/octet-stream"
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("X-Content-Type-Options", "nosniff")
	// The demo is rebuilt often: let browsers revalidate every time.
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Vary", "Accept-Encoding")
	if !compressible[ext] || !acceptsGzip(r) {
		http.ServeFile(w, r, file)
		return
	}
	body, err := h.gzip(file, st)
	if err != nil {
		http.Error(w, "cannot read "+name, http.StatusInternalServerError)
		return
	}
	hd.Set("Content-Encoding", "gzip")
	http.ServeContent(w, r, name, st.ModTime(), bytes.NewReader(body))
}

// gzip returns the file's compressed bytes, from the cache when the file has
// not changed since they were made.
func (h *handler) gzip(file string, st os.FileInfo) ([]byte, error) {
	h.mu.Lock()
	g, ok := h.gzips[file]
	h.mu.Unlock()
	if ok && g.mod.Equal(st.ModTime()) && g.size == st.Size() {
		return g.body, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.gzips[file] = gzipped{mod: st.ModTime(), size: st.Size(), body: buf.Bytes()}
	h.mu.Unlock()
	return buf.Bytes(), nil
}

// warm compresses every compressible file of the folder ahead of the first
// request, so the first visitor does not wait for the module's gzip.
func (h *handler) warm() error {
	return filepath.WalkDir(h.dir, func(file string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible[strings.ToLower(filepath.Ext(file))] {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		_, err = h.gzip(file, st)
		return err
	})
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (a "gzip;q=0" refuses it).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
				return false
			}
		}
		return true
	}
	return false
}
