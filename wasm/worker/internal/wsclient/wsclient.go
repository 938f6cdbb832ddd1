//go:build !js

// Package wsclient is the smallest WebSocket client the worker's tests and
// benchmark need (RFC 6455): connect, read text messages, send text
// messages (a write on a live socket), close.
package wsclient

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Conn is an open WebSocket.
type Conn struct {
	c  net.Conn
	br *bufio.Reader
}

// Dial opens a WebSocket to rawURL (http:// or ws://, loopback in practice).
func Dial(rawURL string, header http.Header) (*Conn, *http.Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, err
	}
	u.Scheme = "http"
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	var k [16]byte
	rand.Read(k[:])
	req, _ := http.NewRequest("GET", u.String(), nil)
	for name, vs := range header {
		req.Header[name] = vs
	}
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", base64.StdEncoding.EncodeToString(k[:]))
	if err := req.Write(c); err != nil {
		c.Close()
		return nil, nil, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, resp, errors.New("no WebSocket: status " + strconv.Itoa(resp.StatusCode))
	}
	return &Conn{c: c, br: br}, resp, nil
}

// Read returns the next text or binary message, waiting at most d.
func (w *Conn) Read(d time.Duration) ([]byte, error) {
	w.c.SetReadDeadline(time.Now().Add(d))
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 16<<20 {
			return nil, errors.New("a WebSocket frame over 16 MiB")
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(w.br, p); err != nil {
			return nil, err
		}
		switch op {
		case 8:
			ce := &CloseError{Code: 1005}
			if len(p) >= 2 {
				ce.Code, ce.Reason = int(binary.BigEndian.Uint16(p)), string(p[2:])
			}
			return nil, ce
		case 9, 10:
			continue // ping, pong: nothing to answer in a test
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

// Send sends msg as one masked text frame.
func (w *Conn) Send(msg []byte) error {
	frame := make([]byte, 0, len(msg)+14)
	frame = append(frame, 0x81)
	switch n := len(msg); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n < 1<<16:
		frame = append(frame, 0x80|126, byte(n>>8), byte(n))
	default:
		frame = append(frame, 0x80|127)
		frame = binary.BigEndian.AppendUint64(frame, uint64(n))
	}
	var key [4]byte
	rand.Read(key[:])
	frame = append(frame, key[:]...)
	for i, b := range msg {
		frame = append(frame, b^key[i&3])
	}
	w.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	_, err := w.c.Write(frame)
	return err
}

// Close sends a (masked, empty) close frame, waits up to a second for the
// server's close frame, and closes the connection.
func (w *Conn) Close() error {
	w.c.Write([]byte{0x88, 0x80, 0, 0, 0, 0})
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		if _, err := w.Read(time.Until(end)); err != nil {
			break // io.EOF: the server's close frame
		}
	}
	return w.c.Close()
}

// CloseError is the server's close frame, as Read returns it: its code (1005
// when it had none) and reason. errors.Is(err, io.EOF) holds for it.
type CloseError struct {
	Code   int
	Reason string
}

func (e *CloseError) Error() string {
	return "websocket closed: " + strconv.Itoa(e.Code) + " " + e.Reason
}

func (e *CloseError) Unwrap() error { return io.EOF }
