package formats_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// An imported file means what the tool that wrote it shows: a message that
// names a key twice keeps the last value, as JSON.parse reads it, and the
// report says so with where it was (issue 23 §1).
func TestImportsKeepTheLastValueOfAKeyNamedTwiceAndSaySo(t *testing.T) {
	for _, c := range []struct {
		format, file, want, where string
		line                      int
	}{
		{formats.OpenAI, `[{"role":"user","content":"shown","content":"sent"}]`, "sent", "$[0].content", 0},
		{formats.OpenAI, "[\n  {\"role\": \"system\", \"role\": \"user\", \"content\": \"x\"}\n]", "x", "$[0].role", 0},
		{formats.ClaudeCode, `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}` + "\n" +
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-01-01T00:00:01Z","message":{"role":"assistant","content":[{"type":"text","text":"shown","text":"sent"}]}}` + "\n", "sent", "$.message.content[0].text", 2},
		{formats.SillyTavern, "{\"user_name\":\"u\",\"character_name\":\"c\"}\n{\"name\":\"c\",\"is_user\":false,\"mes\":\"shown\",\"mes\":\"sent\"}\n", "sent", "$.mes", 2},
		{formats.ClaudeAI, `[{"uuid":"c","chat_messages":[{"uuid":"m","sender":"human","text":"shown","text":"sent"}]}]`, "sent", "$[0].chat_messages[0].text", 0},
		{formats.AssistantUI, `{"headId":"m","messages":[{"message":{"id":"m","role":"user","content":[{"type":"text","text":"shown","text":"sent"}]},"parentId":null}]}`, "sent", "$.messages[0].message.content[0].text", 0},
	} {
		tr, rep, err := formats.Import(c.format, []byte(c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		msgs, err := tr.LinearProjection()
		if err != nil || len(msgs) == 0 {
			t.Fatalf("%s: %v", c.format, err)
		}
		last := msgs[len(msgs)-1]
		if !strings.Contains(last.Text(), c.want) || bytes.Count(last, []byte(`"content"`)) > 1 || bytes.Count(last, []byte(`"role"`)) != 1 {
			t.Errorf("%s: imported %s, want the last value %q once", c.format, last, c.want)
		}
		found := false
		for _, p := range rep.Problems {
			if strings.Contains(p.Message, "named twice") && strings.Contains(p.Message, c.where) && p.Line == c.line {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the report does not say what it kept: %+v", c.format, rep.Problems)
		}
		if _, err := core.Unmarshal(tr.Marshal()); err != nil {
			t.Errorf("%s: the import does not load back: %v", c.format, err)
		}
	}
}

// A conversation's title is read as JSON.parse reads the file, too.
func TestImportAllTitlesMeanWhatJSONParseReads(t *testing.T) {
	file := `[{"title":"shown","title":"kept","mapping":{"a":{"id":"a","message":{"id":"a","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}},"parent":null,"children":[]}},"current_node":"a"},` +
		`{"title":"second","mapping":{"b":{"id":"b","message":{"id":"b","author":{"role":"user"},"content":{"content_type":"text","parts":["yo"]}},"parent":null,"children":[]}},"current_node":"b"}]`
	convs, err := formats.ImportAll([]byte(file), formats.ChatGPT)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].Title != "kept" || convs[1].Title != "second" {
		t.Fatalf("titles: %q", []string{convs[0].Title, convs[1].Title})
	}
}
