package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// FuzzMessageMeansWhatJSONParseReads is the differential target of issue 23
// §1: what core reads from a message (its role, its text, its tool ids) must
// be what JSON.parse reads. The model of JSON.parse is encoding/json decoding
// into maps, which keeps the last member of a repeated key as JSON.parse
// does. A message core accepts must read the same; one naming a key twice
// must be refused; and the form imports and Repair give it (KeepLastKeys)
// must read as JSON.parse reads the original.
//
//	go test ./core/chat -run XXX -fuzz FuzzMessageMeansWhatJSONParseReads -fuzztime 10m
func FuzzMessageMeansWhatJSONParseReads(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi"}`,
		`{"role":"user","role":"assistant","content":"hi"}`,
		`{"role":"user","r\u006fle":"system","content":"x"}`,
		`{"role":"user","content":[{"type":"text","text":"a","text":"b"},{"type":"image_url"}]}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","id":"c2","type":"function","function":{"name":"f","name":"g","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","tool_call_id":"c2","content":"ok"}`,
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"bash","input":{"a":1,"a":2}},{"type":"tool_result","tool_use_id":"t0","tool_use_id":"t1","content":"x"}]}`,
		`{"content":"late","role":"user","content":"later"}`,
		`{"role":"user","content":"a\nb","content":["x",{"text":"y"},{"type":"t"},{}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		kept, dropped, kerr := rawjson.KeepLastKeys(b)
		m, err := core.ParseMessage(b)
		var de *rawjson.DuplicateKeyError
		switch {
		case err == nil && len(dropped) > 0:
			t.Fatalf("accepted %s, which names %q twice", b, dropped[0].Key)
		case err != nil && strings.Contains(err.Error(), "twice") && kerr == nil && len(dropped) == 0:
			t.Fatalf("refused %s for a key named twice, but no key repeats: %v", b, err)
		case errors.As(err, &de):
			t.Fatalf("a rawjson error leaked: %v", err)
		}
		oracle, ok := jsonParse(b)
		if !ok {
			return
		}
		if err == nil {
			sameReading(t, b, m, oracle)
		}
		if kerr == nil && len(dropped) > 0 {
			if r, err := core.ParseMessage(kept); err == nil {
				sameReading(t, b, r, oracle)
			} else if _, isObj := oracle.(map[string]any); isObj && isJSONString(oracle.(map[string]any)["role"]) {
				t.Fatalf("%s: the kept form %s is refused: %v", b, kept, err)
			}
		}
	})
}

// jsonParse decodes b as JSON.parse does (numbers kept as text).
func jsonParse(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

func isJSONString(v any) bool { _, ok := v.(string); return ok }

// sameReading compares what core reads from m with what JSON.parse read from
// the input b (oracle).
func sameReading(t *testing.T, b []byte, m core.Message, oracle any) {
	t.Helper()
	obj, ok := oracle.(map[string]any)
	if !ok {
		t.Fatalf("%s: core took a non-object as a message", b)
	}
	role, _ := obj["role"].(string)
	if m.Role() != role || Read(m).Source != role && Read(m).Source != "compactionSummary" && Read(m).Source != "branchSummary" {
		t.Fatalf("%s: core reads role %q (%q), JSON.parse %q", b, m.Role(), Read(m).Source, role)
	}
	if want, ok := oracleText(obj); ok && m.Text() != want {
		t.Fatalf("%s: core reads text %q, JSON.parse %q", b, m.Text(), want)
	}
	if id, ok := obj["tool_call_id"].(string); ok {
		if got, _ := rawjson.LookupString(m, "tool_call_id"); got != id {
			t.Fatalf("%s: core reads tool_call_id %q, JSON.parse %q", b, got, id)
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		raw, _ := rawjson.Lookup(m, "tool_calls")
		i := 0
		d := rawjson.NewDecoder(raw)
		_ = d.Array(func() error {
			c, _ := d.Raw()
			if call, ok := calls[i].(map[string]any); ok {
				want, _ := call["id"].(string)
				if got, _ := rawjson.LookupString(c, "id"); got != want {
					t.Fatalf("%s: core reads the id of call %d as %q, JSON.parse %q", b, i, got, want)
				}
			}
			i++
			return nil
		})
	}
	if parts, ok := obj["content"].([]any); ok {
		raw, _ := rawjson.Lookup(m, "content")
		i := 0
		d := rawjson.NewDecoder(raw)
		_ = d.Array(func() error {
			p, _ := d.Raw()
			if part, ok := parts[i].(map[string]any); ok {
				for _, k := range []string{"id", "tool_use_id", "type"} {
					want, _ := part[k].(string)
					if got, _ := rawjson.LookupString(p, k); got != want {
						t.Fatalf("%s: core reads %s of part %d as %q, JSON.parse %q", b, k, i, got, want)
					}
				}
			}
			i++
			return nil
		})
	}
}

// oracleText is Message.Text's rule applied to what JSON.parse read; false
// where the rule needs the JSON text of a value (non-string arguments).
func oracleText(obj map[string]any) (string, bool) {
	var pieces []string
	switch c := obj["content"].(type) {
	case string:
		pieces = append(pieces, c)
	case []any:
		for _, p := range c {
			switch p := p.(type) {
			case string:
				pieces = append(pieces, p)
			case map[string]any:
				if s, ok := p["text"].(string); ok && p["type"] != "reasoning" {
					pieces = append(pieces, s)
				} else if s, ok := p["type"].(string); ok {
					pieces = append(pieces, "["+s+"]")
				} else {
					pieces = append(pieces, "[part]")
				}
			}
		}
	}
	if calls, ok := obj["tool_calls"].([]any); ok {
		for _, c := range calls {
			call, ok := c.(map[string]any)
			if !ok {
				pieces = append(pieces, "[tool_call]")
				continue
			}
			fn, ok := call["function"].(map[string]any)
			if !ok {
				fn = call
			}
			name, _ := fn["name"].(string)
			args, isStr := fn["arguments"].(string)
			if _, has := fn["arguments"]; has && (!isStr || args == "") {
				return "", false
			}
			pieces = append(pieces, "[tool_call "+name+"("+args+")]")
		}
	}
	return strings.ReplaceAll(strings.Join(pieces, " "), "\n", `\n`), true
}
