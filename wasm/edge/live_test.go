//go:build !js || stock

package edge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// A delta names the new ETag and version and carries each changed row as it
// is stored; a deleted tree is one line; a delta over the limit leaves the
// rows out and says so.
func TestADeltaCarriesTheRowsAWriteChanged(t *testing.T) {
	w := Write{Meta: Meta{ID: "t1", ETag: `"2-ab"`, Version: 2, Root: "n1", Active: "main"},
		PutNodes:    []core.Fragment{{Key: "n2", JSON: []byte(`{"id":"n2","parent":"n1"}`)}},
		DelNodes:    []string{"n0"},
		PutBranches: []core.Fragment{{Key: "main", JSON: []byte(`{"name":"main","leaf":"n2"}`)}}}
	var d struct {
		Type, ID, ETag, Root, Active string
		Version                      int64
		Nodes, Branches              map[string]map[string]any
		DeletedNodes                 []string `json:"deleted_nodes"`
		DeletedBranches              []string `json:"deleted_branches"`
		Partial                      bool
	}
	if err := json.Unmarshal(Delta(w, false, MaxDelta), &d); err != nil {
		t.Fatal(err)
	}
	if d.Type != "change" || d.ETag != `"2-ab"` || d.Version != 2 || d.Nodes["n2"]["parent"] != "n1" ||
		d.Branches["main"]["leaf"] != "n2" || len(d.DeletedNodes) != 1 || d.DeletedBranches == nil || d.Partial {
		t.Fatalf("delta: %+v", d)
	}
	if got := string(Delta(w, true, MaxDelta)); got != `{"type":"deleted","id":"t1"}` {
		t.Fatalf("deleted: %s", got)
	}
	small := string(Delta(w, false, 50))
	if !strings.Contains(small, `"partial":true`) || strings.Contains(small, "n2") || !json.Valid([]byte(small)) {
		t.Fatalf("over the limit: %s", small)
	}
}

// The live route is a WebSocket of an object: elsewhere 501, without the
// upgrade 426, for a tree that is not there 404, and a bad client name 400.
func TestTheLiveRouteAnswersOnlyAnUpgradeOnAnObject(t *testing.T) {
	c := newClient(t, newTestHandler(NewMemStore()), "alice")
	id := c.create("")
	wantError(t, c.do("GET", "/v1/trees/"+id+"/live", "", "Upgrade", "websocket"), 501, CodeNotImplemented)
	f := newFabric(t)
	fc := newClient(t, f, "alice")
	id = fc.create("")
	wantError(t, fc.do("GET", "/v1/trees/"+id+"/live", ""), 426, "upgrade_required")
	wantError(t, fc.do("GET", "/v1/trees/"+strings.Repeat("0", 32)+"/live", "", "Upgrade", "websocket"), 404, "not_found")
	wantError(t, fc.do("GET", "/v1/trees/"+id+"/live?client=a%20b", "", "Upgrade", "websocket"), 400, "invalid_input")
	r := fc.do("GET", "/v1/trees/"+id+"/live?client=tab-1", "", "Upgrade", "websocket")
	if r.status != 200 || r.header.Get(HeaderLive) != "accept" || r.header.Get(HeaderClient) != "tab-1" ||
		!strings.Contains(string(r.body), `"type":"hello"`) {
		t.Fatalf("live: %d %v %s", r.status, r.header, r.body)
	}
	// The token may come as ?access_token= on this route only.
	anon := &client{t: t, h: f}
	tok := fc.token
	if r := anon.do("GET", "/v1/trees/"+id+"/live?access_token="+tok, "", "Upgrade", "websocket"); r.status != 200 {
		t.Fatalf("live with ?access_token=: %d %s", r.status, r.body)
	}
	wantError(t, anon.do("GET", "/v1/trees/"+id+"?access_token="+tok, ""), 401, CodeUnauthorized)
}
