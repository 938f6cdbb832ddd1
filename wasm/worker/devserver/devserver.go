//go:build !js

// Package devserver starts and stops `wrangler dev` for the worker's HTTP test
// suite and benchmark: on a free loopback port, with its own D1 state
// directory, and always stopped with its whole process group.
package devserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is one running `wrangler dev` (or, with Options.Direct, the worker
// under Miniflare alone).
type Server struct {
	URL     string // http://127.0.0.1:PORT
	direct  bool   // Options.Direct: its one workerd runs the worker
	cmd     *exec.Cmd
	log     *bytes.Buffer
	logMu   *sync.Mutex
	stopped bool
	copyDir string // the copy of the worker's build it serves (snapshot)
	done    chan struct{}
}

// Options says what to run.
type Options struct {
	Dir     string            // the directory of the wrangler config (wasm/worker)
	Config  string            // the config file, relative to Dir ("" = wrangler.toml)
	Persist string            // the D1 state directory (made and migrated if new)
	Vars    map[string]string // --var NAME:value
	Nudge   bool              // GET /healthz every second while it runs (see nudge)
	// LogLevel is wrangler's --log-level ("" = its default, info). At
	// "warn" wrangler logs no line per request: at info each request's line
	// goes from its proxy to its Node process as an HTTP request of its own
	// (miniflare's /core/log), which cost Node about 2.8 ms of CPU per
	// request, half a core at 900 requests a second on this machine's 2
	// cores, competing with the worker. Errors (the worker's console.error)
	// are still logged; "Reloading local server" is not.
	LogLevel string
	// Direct serves the worker without wrangler: direct.mjs runs it with
	// Miniflare's API, on the same workerd, local D1 and Durable Object
	// storage as wrangler dev, with no proxy in front (wrangler dev's proxy
	// is a workerd and a Node process of its own that carry every request
	// and frame; on a 2-core machine their turns are part of every latency
	// measured through them). Nudge and LogLevel do not apply.
	Direct bool
}

// Wrangler is the wrangler binary: $WRANGLER, or the project-local one found
// from Dir upwards.
func wrangler(dir string) string {
	if w := os.Getenv("WRANGLER"); w != "" {
		return w
	}
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".tools", "node_modules", ".bin", "wrangler")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		if filepath.Dir(d) == d {
			return "wrangler"
		}
	}
}

func command(o Options, args ...string) *exec.Cmd {
	return commandIn(o, "", args...)
}

// commandIn is command run in the directory run (o.Dir if ""), with the
// wrangler found from o.Dir.
func commandIn(o Options, run string, args ...string) *exec.Cmd {
	dir, _ := filepath.Abs(o.Dir)
	if o.Config != "" {
		args = append(args, "--config", o.Config)
	}
	cmd := exec.Command(wrangler(dir), args...)
	cmd.Dir = dir
	if run != "" {
		cmd.Dir = run
	}
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=true", "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// Migrate applies the D1 migrations to the local state in o.Persist.
func Migrate(o Options) error {
	cmd := command(o, "d1", "migrations", "apply", "DB", "--local", "--persist-to", o.Persist)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("wrangler d1 migrations apply: %v\n%s", err, out)
	}
	return nil
}

// ExecD1 runs SQL statements on the local D1 state in o.Persist (with no
// wrangler dev on it meanwhile), from a file: a test seeds rows there.
func ExecD1(o Options, sql string) error {
	f, err := os.CreateTemp("", "sessiontree-d1-*.sql")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(sql); err != nil {
		f.Close()
		return err
	}
	f.Close()
	cmd := command(o, "d1", "execute", "DB", "--local", "--persist-to", o.Persist, "--file", f.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("wrangler d1 execute: %v\n%s", err, out)
	}
	return nil
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// snapshot copies what wrangler dev serves from dir (its configs, .dev.vars,
// migrations and build directories) into a new temporary directory.
//
// wrangler dev watches the files it serves and reloads the worker when one
// changes: a `make worker-build` (or a test run, which builds first) in the
// same checkout while a benchmark or the test suite runs restarted the
// worker under load, and wrangler's proxy answered every write in flight
// "Your worker restarted mid-request" (503), most of all the If-Match writes
// held for their turn. A server started here serves its own copy instead.
func snapshot(dir string) (string, error) {
	to, err := os.MkdirTemp("", "sessiontree-worker-")
	if err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && (name == "migrations" || name == "build" || strings.HasPrefix(name, "build-")):
			err = os.CopyFS(filepath.Join(to, name), os.DirFS(filepath.Join(dir, name)))
		case !e.IsDir() && (strings.HasSuffix(name, ".toml") || name == ".dev.vars"):
			var b []byte
			if b, err = os.ReadFile(filepath.Join(dir, name)); err == nil {
				err = os.WriteFile(filepath.Join(to, name), b, 0o600)
			}
		}
		if err != nil {
			os.RemoveAll(to)
			return "", err
		}
	}
	return to, nil
}

// Start migrates o.Persist and runs wrangler dev on a free loopback port,
// from a copy of o.Dir's build (see snapshot), returning once the worker answers.
func Start(o Options) (*Server, error) {
	if !o.Direct {
		if err := Migrate(o); err != nil {
			return nil, err
		}
	}
	dir, _ := filepath.Abs(o.Dir)
	copyDir, err := snapshot(dir)
	if err != nil {
		return nil, fmt.Errorf("copying the worker's build: %v", err)
	}
	var lastErr error
	for try := 0; try < 3; try++ {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		inspector, err := FreePort()
		if err != nil {
			return nil, err
		}
		args := []string{"dev", "--ip", "127.0.0.1", "--port", fmt.Sprint(port),
			"--persist-to", o.Persist, "--inspector-port", fmt.Sprint(inspector),
			"--show-interactive-dev-session=false"}
		for k, v := range o.Vars {
			args = append(args, "--var", k+":"+v)
		}
		if o.LogLevel != "" {
			args = append(args, "--log-level", o.LogLevel)
		}
		cmd := commandIn(o, copyDir, args...)
		if o.Direct {
			if cmd, err = directCommand(o, copyDir, port); err != nil {
				os.RemoveAll(copyDir)
				return nil, err
			}
		}
		s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), direct: o.Direct, cmd: cmd, log: &bytes.Buffer{}, logMu: &sync.Mutex{}}
		cmd.Stdout = lockedWriter{s}
		cmd.Stderr = lockedWriter{s}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		// Let a caller that may be killed (make's trap) stop the group too.
		if f := os.Getenv("SESSIONTREE_WORKER_PIDS"); f != "" {
			if pf, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(pf, cmd.Process.Pid)
				pf.Close()
			}
		}
		if lastErr = s.waitReady(90 * time.Second); lastErr == nil {
			s.copyDir = copyDir
			s.done = make(chan struct{})
			if o.Nudge && !o.Direct {
				go s.nudge()
			}
			return s, nil
		}
		s.Stop()
	}
	os.RemoveAll(copyDir)
	return nil, lastErr
}

// directCommand is the command that serves copyDir's build on port without
// wrangler (Options.Direct): node, direct.mjs (beside this file in o.Dir),
// Miniflare from the project's tools, the variables of copyDir's .dev.vars
// and then o.Vars.
func directCommand(o Options, copyDir string, port int) (*exec.Cmd, error) {
	dir, _ := filepath.Abs(o.Dir)
	index := ""
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, ".tools", "node_modules", "miniflare", "dist", "src", "index.js")
		if _, err := os.Stat(p); err == nil {
			index = p
			break
		}
		if filepath.Dir(d) == d {
			return nil, errors.New("no Miniflare under .tools/node_modules (make tools installs wrangler, which brings it)")
		}
	}
	config := o.Config
	if config == "" {
		config = "wrangler.toml"
	}
	args := []string{filepath.Join(dir, "devserver", "direct.mjs"), index, copyDir, config, fmt.Sprint(port), o.Persist}
	if b, err := os.ReadFile(filepath.Join(copyDir, ".dev.vars")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") && strings.Contains(line, "=") {
				args = append(args, line)
			}
		}
	}
	for k, v := range o.Vars {
		args = append(args, k+"="+v)
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = copyDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

// nudge sends GET /healthz every second until the server stops.
//
// wrangler dev's proxy sends each request to workerd on a pooled keep-alive
// connection, and workerd closes one idle for 5 s (sooner by its own clock
// when its thread was busy): a request sent on one just closed fails. The
// proxy answers such a failed POST (or any method but GET and HEAD) 503 "Your
// worker restarted mid-request", and keeps a failed GET or HEAD to send again
// only when its next request arrives: a client that waits for that GET
// before sending anything else waits until its timeout. A request a second
// sends the kept ones again within a second.
func (s *Server) nudge() {
	c := &http.Client{Timeout: 30 * time.Second}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		// Not waited for: a nudge kept by the proxy is sent by the next.
		go func() {
			if resp, err := c.Get(s.URL + "/healthz"); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
}

// halt stops the nudges.
func (s *Server) halt() {
	if s.done != nil {
		close(s.done)
		s.done = nil
	}
}

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.logMu.Lock()
	defer w.s.logMu.Unlock()
	if w.s.log.Len() < 1<<20 {
		w.s.log.Write(p)
	}
	return len(p), nil
}

// Log is what wrangler printed so far.
func (s *Server) Log() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

func (s *Server) waitReady(limit time.Duration) error {
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	deadline := time.Now().Add(limit)
	c := &http.Client{Timeout: 5 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			s.stopped = true
			return fmt.Errorf("wrangler dev exited: %v\n%s", err, s.Log())
		case <-time.After(300 * time.Millisecond):
		}
		if s.direct && !strings.Contains(s.Log(), "ready\n") {
			continue // direct.mjs applies the migrations after the worker answers
		}
		resp, err := c.Get(s.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				go func() { <-exited }()
				return nil
			}
		}
	}
	return errors.New("wrangler dev did not answer in time:\n" + s.Log())
}

// Stop ends wrangler dev and everything it started (workerd), and waits a
// moment for the port to be released.
// Kill ends wrangler dev and workerd at once (SIGKILL to the process group,
// kill -9): no request in flight is answered, nothing is flushed.
func (s *Server) Kill() {
	if s == nil || s.cmd.Process == nil || s.stopped {
		return
	}
	s.stopped = true
	s.halt()
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	for i := 0; i < 50 && syscall.Kill(-s.cmd.Process.Pid, 0) == nil; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	s.removeCopy()
}

func (s *Server) Stop() {
	if s == nil || s.cmd.Process == nil || s.stopped {
		return
	}
	s.stopped = true
	s.halt()
	defer s.removeCopy()
	pgid := s.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	for i := 0; i < 50; i++ {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(-pgid, syscall.SIGKILL)
}

// removeCopy removes the copy of the build the server served.
func (s *Server) removeCopy() {
	if s.copyDir != "" {
		os.RemoveAll(s.copyDir)
		s.copyDir = ""
	}
}

// CPU is the processor time (user and system, in clock ticks) used so far by
// each process of the server's group, by role: "worker" (the workerd that runs
// the worker, started with an inspector), "proxy" (wrangler's entry workerd,
// which carries every request and frame), "wrangler" (its Node process) and
// "other". Read from /proc: CPU time is steadier than wall time on a busy
// machine, and says which process a load costs.
func (s *Server) CPU() map[string]int64 {
	out := map[string]int64{}
	s.each(func(_, role string, st Stat) { out[role] += st.Ticks })
	return out
}

// WorkerMemory is the resident memory of the workerd that runs the worker,
// now and at its peak (VmRSS and VmHWM of /proc/PID/status, in bytes), or
// zeros when it cannot be read.
func (s *Server) WorkerMemory() (now, peak int64) {
	s.each(func(pid, role string, _ Stat) {
		if role != "worker" {
			return
		}
		b, err := os.ReadFile("/proc/" + pid + "/status")
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			switch k {
			case "VmRSS":
				now += kb << 10
			case "VmHWM":
				peak += kb << 10
			}
		}
	})
	return now, peak
}

// each calls fn with each process of the server's group: its pid, its role
// (see CPU) and its stat.
func (s *Server) each(fn func(pid, role string, st Stat)) {
	if s == nil || s.cmd.Process == nil {
		return
	}
	pgid := s.cmd.Process.Pid
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		st, err := ProcStat("/proc/" + pid + "/stat")
		if err != nil || st.Pgrp != pgid {
			continue
		}
		role := "other"
		switch st.Comm {
		case "workerd":
			args, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			if s.direct || bytes.Contains(args, []byte("--inspector-addr")) {
				role = "worker"
			} else {
				role = "proxy"
			}
		case "node", "MainThread":
			role = "wrangler"
		}
		fn(pid, role, st)
	}
}

// Pin puts every thread of the workerd that runs the worker on processor
// worker, and every other thread of the server's group (wrangler's proxy and
// Node process) on rest: on a small machine, a load's client and the proxy
// then take no turns from the worker's thread, and what is left of another
// tenant's wait is the worker's own. Threads started later are pinned by the
// next call. Linux only.
func (s *Server) Pin(worker, rest int) error {
	var err error
	s.each(func(pid, role string, _ Stat) {
		cpu := rest
		if role == "worker" {
			cpu = worker
		}
		if e := PinProcess(pid, cpu); e != nil && err == nil {
			err = e
		}
	})
	return err
}

// Stat is what CPU reads of a /proc/PID/stat.
type Stat struct {
	Comm  string
	Pgrp  int
	Ticks int64 // utime + stime
}

// ProcStat reads a /proc/PID/stat file (or /proc/self/stat).
func ProcStat(path string) (Stat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, err
	}
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return Stat{}, errors.New("no command in " + path)
	}
	f := strings.Fields(string(b[close+1:]))
	// After the command: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime …
	if len(f) < 13 {
		return Stat{}, errors.New("short " + path)
	}
	var st Stat
	st.Comm = string(b[open+1 : close])
	fmt.Sscan(f[2], &st.Pgrp)
	var u, s int64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &s)
	st.Ticks = u + s
	return st, nil
}
