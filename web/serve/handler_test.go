package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func serveDir(t *testing.T) *handler {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"index.html":       "<!doctype html><title>demo</title>",
		"sessiontree.wasm": "\x00asm\x01\x00\x00\x00" + string(bytes.Repeat([]byte{0}, 4096)),
		"app.js":           "export {};",
		"screenshot.png":   "\x89PNG",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return newHandler(dir)
}

func get(h http.Handler, target, encoding string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestTheModuleIsServedAsApplicationWasmGzipped(t *testing.T) {
	h := serveDir(t)
	rec := get(h, "/sessiontree.wasm", "gzip, deflate, br")
	if rec.Code != 200 {
		t.Fatalf("status %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/wasm" {
		t.Errorf("Content-Type %q, want application/wasm", ct)
	}
	if ce := rec.Header().Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", ce)
	}
	first := append([]byte(nil), rec.Body.Bytes()...)
	zr, err := gzip.NewReader(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(body, []byte("\x00asm")) || len(body) != 8+4096 {
		t.Errorf("the gunzipped body is not the file (%d bytes)", len(body))
	}
	// A second request is served from the cache, with the same bytes.
	if again := get(h, "/sessiontree.wasm", "gzip"); !bytes.Equal(again.Body.Bytes(), first) {
		t.Error("the cached gzip differs from the first")
	}
}

func TestAClientWithoutGzipGetsThePlainFile(t *testing.T) {
	h := serveDir(t)
	for _, enc := range []string{"", "gzip;q=0", "br"} {
		rec := get(h, "/app.js", enc)
		if rec.Header().Get("Content-Encoding") != "" || rec.Body.String() != "export {};" {
			t.Errorf("Accept-Encoding %q: got encoding %q body %q", enc, rec.Header().Get("Content-Encoding"), rec.Body.String())
		}
		if ct := rec.Header().Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
	}
}

func TestTheFolderRootServesIndexHTML(t *testing.T) {
	rec := get(serveDir(t), "/", "")
	if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte("<title>demo")) {
		t.Errorf("status %d body %q", rec.Code, rec.Body.String())
	}
}

func TestNothingOutsideTheFolderIsServed(t *testing.T) {
	h := serveDir(t)
	for _, target := range []string{"/../secret.txt", "/%2e%2e/secret.txt", "/missing.js"} {
		if rec := get(h, target, ""); rec.Code != 404 {
			t.Errorf("%s: status %d, want 404", target, rec.Code)
		}
	}
}

func TestImagesAreNotGzipped(t *testing.T) {
	rec := get(serveDir(t), "/screenshot.png", "gzip")
	if rec.Header().Get("Content-Encoding") != "" || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("encoding %q type %q", rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Type"))
	}
}

func TestTheServerRefusesANonLoopbackAddress(t *testing.T) {
	if err := run(t.TempDir(), "0.0.0.0:0"); err == nil {
		t.Error("run on 0.0.0.0 succeeded")
	}
}
