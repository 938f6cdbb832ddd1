//go:build !js

package httpsuite

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A slow upload to one tree holds up no other request: the body is read
// before the request asks for the isolate's Go instance.
func TestASlowUploadDelaysNoOtherTenant(t *testing.T) {
	slow := &client{t: t, token: token(t, "slow-uploader")}
	id, _ := slow.create("")
	other := &client{t: t, token: token(t, "bystander")}
	other.create("")

	const upload = 4 * time.Second
	pr, pw := io.Pipe()
	go func() {
		body := appendBody("trickled in")
		step := upload / time.Duration(len(body))
		for i := 0; i < len(body); i++ {
			time.Sleep(step)
			if _, err := pw.Write([]byte{body[i]}); err != nil {
				return
			}
		}
		pw.Close()
	}()
	done := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequest("POST", server.URL+"/v1/trees/"+id+"/ops", pr)
		req.Header.Set("Authorization", "Bearer "+slow.token)
		resp, err := httpClient.Do(req)
		if err != nil {
			done <- reply{status: -1, body: []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- reply{status: resp.StatusCode, body: b}
	}()
	time.Sleep(upload / 4)
	var worst time.Duration
	for i := 0; i < 10; i++ {
		start := time.Now()
		if r := other.do("GET", "/v1/trees", ""); r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		worst = max(worst, time.Since(start))
	}
	if worst > upload/4 {
		t.Errorf("another tenant's list took %v during a %v upload", worst, upload)
	}
	if r := <-done; r.status != 200 || !strings.Contains(string(r.body), `"etag"`) {
		t.Fatalf("the slow append: %d %s", r.status, r.body)
	}
}
