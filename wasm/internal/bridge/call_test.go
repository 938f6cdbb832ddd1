package bridge

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// frame writes args as JavaScript does: each a little-endian uint32 length and
// its bytes, in the input buffer.
func frame(args ...string) []byte {
	var in []byte
	for _, a := range args {
		in = binary.LittleEndian.AppendUint32(in, uint32(len(a)))
		in = append(in, a...)
	}
	buf := Reserve(len(in))
	copy(buf, in)
	return buf[:len(in)]
}

func envelope(t *testing.T, res []byte) (code, msg string) {
	t.Helper()
	var e struct{ Code, Message string }
	if err := json.Unmarshal(res, &e); err != nil || e.Code == "" || e.Message == "" {
		t.Fatalf("not a {code,message} envelope: %q", res)
	}
	return e.Code, e.Message
}

func serveTest() {
	Serve([]Method{
		{"echo", func(c *Call) ([]byte, error) {
			a, err := c.Str(0, "first")
			if err != nil {
				return nil, err
			}
			return []byte(a + "|" + string(c.Args[len(c.Args)-1])), nil
		}},
		{"fail", func(c *Call) ([]byte, error) {
			return nil, &core.Error{Code: core.CodeBranchNotFound, Message: "no branch x"}
		}},
		{"plain", func(c *Call) ([]byte, error) { return nil, errors.New("plain error") }},
		{"boom", func(c *Call) ([]byte, error) { panic("kaboom") }},
	})
}

func TestCallZeroListsTheTableInCallNumberOrder(t *testing.T) {
	serveTest()
	res, ok := Do(0, 0, nil, 0)
	if !ok || string(res) != "methods\necho\nfail\nplain\nboom" {
		t.Fatalf("methods = %q, %v", res, ok)
	}
}

func TestArgumentsCrossAsLengthPrefixedBytes(t *testing.T) {
	serveTest()
	res, ok := Do(1, 7, frame("héllo 😀", "", "last"), 12)
	if !ok || string(res) != "héllo 😀|last" {
		t.Fatalf("echo = %q, %v", res, ok)
	}
	if current.Args[0] != nil {
		t.Fatal("the call's views of the input buffer are kept after the call")
	}
}

func TestEveryFailureIsACodeAndASentence(t *testing.T) {
	serveTest()
	cases := []struct {
		method uint32
		in     []byte
		at     float64
		code   string
		says   string
	}{
		{1, nil, 0, "invalid_input", "echo: missing argument first"},
		{2, nil, 0, "branch_not_found", "no branch x"},
		{3, nil, 0, "invalid_input", "plain error"},
		{4, nil, 0, "corrupt", "internal error in boom"},
		{99, nil, 0, "invalid_input", "unknown method number 99"},
		{1, []byte{1, 0}, 0, "invalid_input", "truncated argument header"},
		{1, []byte{9, 0, 0, 0, 'a'}, 0, "invalid_input", "argument longer than the input"},
		{1, frame("a"), 1.5, "invalid_input", "integer number of milliseconds"},
		{1, frame("a"), 1e300, "invalid_input", "integer number of milliseconds"},
	}
	for _, c := range cases {
		res, ok := Do(c.method, 0, c.in, c.at)
		if ok {
			t.Errorf("call %d: succeeded with %q", c.method, res)
			continue
		}
		code, msg := envelope(t, res)
		if code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("call %d = %s %q, want %s saying %q", c.method, code, msg, c.code, c.says)
		}
	}
	if res, ok := Do(1, 0, frame("still", "working"), 0); !ok || string(res) != "still|working" {
		t.Fatalf("after the failures: %q", res)
	}
}

func TestABigInputBufferIsReleasedAfterItsCall(t *testing.T) {
	serveTest()
	big := strings.Repeat("x", bigInput+1)
	if res, ok := Do(1, 0, frame(big), 0); !ok || len(res) != 2*len(big)+1 {
		t.Fatalf("big echo: %v", ok)
	}
	if cap(input) != 0 {
		t.Fatalf("input buffer of %d bytes kept", cap(input))
	}
}
