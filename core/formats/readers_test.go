package formats_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// What the tools' own readers require of an export, learned by running them
// (transcribed in a temp folder, never committed) on the export of every
// importable file of both corpora and the fixtures (issue 23). Each check below
// names the reader and the commit it was read at; each is run here on every
// fixture's export and on random trees (system and tool roles, edits, several
// roots).

// readerTrees is every fixture read as auto reads it, and random trees.
func readerTrees(t *testing.T) map[string]*core.Tree {
	t.Helper()
	trees := map[string]*core.Tree{}
	for _, name := range fixtureNames(t) {
		tr, _, err := formats.Import(formats.Auto, fixture(t, name))
		if err != nil {
			continue // a fixture auto refuses is no export's source
		}
		trees[name] = tr
	}
	for seed := uint64(1); seed <= 20; seed++ {
		trees[fmt.Sprintf("random tree %d", seed)] = randomTree(seed)
	}
	return trees
}

// LibreChat's import (danny-avila/LibreChat api/server/utils/import:
// importers.js b6e4959, fork.js cloneMessagesWithTimestamps 0b4ce67,
// importBatchBuilder.js 7bc795c) reads a flat export in file order, giving each
// message a new id and its parent's new id, so a parent comes first and a root's
// parent is 00000000-0000-0000-0000-000000000000 (or none); saveBatch stores
// each message through the mongoose message schema (packages/data-schemas
// message.ts ce3ce5f), which casts createdAt to a Date, text, sender, model
// and endpoint to strings, isCreatedByUser to a boolean and tokenCount to a
// number, and one failed cast loses the whole file. The conversation's title
// is a string (convo.ts 34cb6d7).
func TestALibreChatExportIsWhatLibreChatsImporterStores(t *testing.T) {
	for name, tr := range readerTrees(t) {
		out, err := formats.Export(tr, formats.LibreChat)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var f struct {
			ConversationID string           `json:"conversationId"`
			Title          any              `json:"title"`
			Recursive      bool             `json:"recursive"`
			Messages       []map[string]any `json:"messages"`
			Options        map[string]any   `json:"options"`
		}
		if err := json.Unmarshal(out, &f); err != nil || f.ConversationID == "" || f.Messages == nil || f.Recursive {
			t.Fatalf("%s: not a flat LibreChat export (%v)", name, err)
		}
		if _, ok := f.Title.(string); f.Title != nil && !ok {
			t.Fatalf("%s: title %v is not a string", name, f.Title)
		}
		seen := map[string]bool{}
		for _, m := range f.Messages {
			id, _ := m["messageId"].(string)
			p, isString := m["parentMessageId"].(string)
			if id == "" || (m["parentMessageId"] != nil && !isString) || (isString && p != "00000000-0000-0000-0000-000000000000" && !seen[p]) {
				t.Fatalf("%s: message %q: parent %v is not an earlier message", name, id, m["parentMessageId"])
			}
			seen[id] = true
			if at, ok := m["createdAt"]; ok {
				s, _ := at.(string)
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					t.Fatalf("%s: message %s: createdAt %v is no date", name, id, at)
				}
			}
			for _, k := range []string{"text", "sender", "endpoint", "finish_reason"} {
				if v, ok := m[k]; ok && v != nil {
					if _, isStr := v.(string); !isStr {
						t.Fatalf("%s: message %s: %s %v is not a string", name, id, k, v)
					}
				}
			}
			if _, ok := m["text"].(string); !ok {
				if _, parts := m["content"].([]any); !parts {
					t.Fatalf("%s: message %s has neither text nor content", name, id)
				}
			}
			if v, ok := m["model"]; ok && v != nil {
				if _, isStr := v.(string); !isStr {
					t.Fatalf("%s: message %s: model %v", name, id, v)
				}
			}
			if _, ok := m["isCreatedByUser"].(bool); !ok {
				t.Fatalf("%s: message %s: isCreatedByUser %v", name, id, m["isCreatedByUser"])
			}
			if v, ok := m["tokenCount"]; ok {
				if _, isNum := v.(float64); !isNum {
					t.Fatalf("%s: message %s: tokenCount %v", name, id, v)
				}
			}
		}
	}
}

// LibreChat's ChatGPT import (importers.js b6e4959, processConversation) runs
// Object.entries over each conversation's mapping, reads every entry's
// message.content.content_type, message.metadata.model_slug and author.role,
// and dates the conversation new Date(create_time * 1000), which the mongoose
// conversation schema refuses when it is not a number (Invalid Date), losing
// every conversation of the file. Open WebUI's ChatGPT import
// (open-webui/open-webui src/lib/utils/index.ts 5ffcc7c, convertOpenAIMessages
// and validateChat) walks the mapping in key order and keeps a conversation
// only when its last entry has no children and every kept entry's first part
// (or text) is a string.
func TestAChatGPTExportIsWhatLibreChatAndOpenWebUIImport(t *testing.T) {
	for name, tr := range readerTrees(t) {
		out, err := formats.Export(tr, formats.ChatGPT)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var convs []map[string]json.RawMessage
		if err := json.Unmarshal(out, &convs); err != nil || len(convs) == 0 {
			t.Fatalf("%s: not an array of conversations: %v", name, err)
		}
		for i, c := range convs {
			var created any
			_ = json.Unmarshal(c["create_time"], &created)
			if _, ok := created.(float64); !ok {
				t.Fatalf("%s: conversation %d: create_time %s is not a number", name, i, c["create_time"])
			}
			var title any
			_ = json.Unmarshal(c["title"], &title)
			if _, ok := title.(string); !ok {
				t.Fatalf("%s: conversation %d: title %s", name, i, c["title"])
			}
			keys, entries := mappingInOrder(t, c["mapping"])
			if len(keys) == 0 {
				t.Fatalf("%s: conversation %d has no mapping", name, i)
			}
			if last := entries[keys[len(keys)-1]]; len(last.Children) != 0 {
				t.Fatalf("%s: conversation %d: the mapping's last entry %s has children (Open WebUI's validateChat refuses it)", name, i, keys[len(keys)-1])
			}
			for _, k := range keys {
				m := entries[k].Message
				if m == nil {
					continue
				}
				if m.Content == nil || m.Content.ContentType == "" || m.Metadata == nil || m.Author == nil || m.Author.Role == "" {
					t.Fatalf("%s: entry %s lacks content_type, metadata or author.role", name, k)
				}
				if slug, ok := m.Metadata["model_slug"]; ok && slug != nil {
					if _, isStr := slug.(string); !isStr {
						t.Fatalf("%s: entry %s: model_slug %v", name, k, slug)
					}
				}
			}
		}
	}
}

type chatgptEntry struct {
	Children []string `json:"children"`
	Message  *struct {
		Author *struct {
			Role string `json:"role"`
		} `json:"author"`
		Content *struct {
			ContentType string `json:"content_type"`
		} `json:"content"`
		Metadata map[string]any `json:"metadata"`
	} `json:"message"`
}

// mappingInOrder reads a mapping object keeping its keys' order, the order
// JavaScript's for…in and Object.entries give for such keys.
func mappingInOrder(t *testing.T, raw json.RawMessage) ([]string, map[string]chatgptEntry) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	entries := map[string]chatgptEntry{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var e chatgptEntry
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		k := tok.(string)
		keys = append(keys, k)
		entries[k] = e
	}
	return keys, entries
}

// Open WebUI's import (src/lib/components/chat/Settings/DataControls.svelte
// 9e3d540) posts each element's chat to the backend, whose ChatModel
// (backend/open_webui/models/chats.py 4151145) takes the chat's title as a
// str; the chat page walks history.messages from currentId up the parentIds
// (createMessagesList, src/lib/utils/index.ts 5ffcc7c) to a message whose
// parentId is null, renders each content as a markdown string, and moves
// between siblings through the parent's childrenIds, or, for a root, the
// messages whose parentId === null (so a root's parentId is null, not absent).
func TestAnOpenWebUIExportIsWhatOpenWebUIImportsAndShows(t *testing.T) {
	type message struct {
		ID          string   `json:"id"`
		ParentID    *string  `json:"parentId"`
		ChildrenIDs []string `json:"childrenIds"`
		Role        string   `json:"role"`
		Content     any      `json:"content"`
	}
	for name, tr := range readerTrees(t) {
		out, err := formats.Export(tr, formats.OpenWebUI)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var chats []struct {
			Chat struct {
				Title   any `json:"title"`
				History struct {
					CurrentID *string                               `json:"currentId"`
					Messages  map[string]map[string]json.RawMessage `json:"messages"`
				} `json:"history"`
			} `json:"chat"`
		}
		if err := json.Unmarshal(out, &chats); err != nil || len(chats) == 0 {
			t.Fatalf("%s: not an array of chats: %v", name, err)
		}
		for i, c := range chats {
			if _, ok := c.Chat.Title.(string); !ok {
				t.Fatalf("%s: chat %d: title %v is not a string", name, i, c.Chat.Title)
			}
			msgs := map[string]message{}
			for id, raw := range c.Chat.History.Messages {
				if _, ok := raw["parentId"]; !ok {
					t.Fatalf("%s: message %s has no parentId (a root's is null)", name, id)
				}
				var m message
				b, _ := json.Marshal(raw)
				_ = json.Unmarshal(b, &m)
				if m.ID != id || m.ChildrenIDs == nil {
					t.Fatalf("%s: message %s: id %q, childrenIds %v", name, id, m.ID, m.ChildrenIDs)
				}
				if _, ok := m.Content.(string); !ok {
					t.Fatalf("%s: message %s: content is not a string", name, id)
				}
				if m.Role != "user" && m.Role != "assistant" && m.Role != "system" {
					t.Fatalf("%s: message %s: role %q", name, id, m.Role)
				}
				msgs[id] = m
			}
			for id, m := range msgs {
				for _, k := range m.ChildrenIDs {
					if ch, ok := msgs[k]; !ok || ch.ParentID == nil || *ch.ParentID != id {
						t.Fatalf("%s: child %s of %s does not name it as parent", name, k, id)
					}
				}
				if m.ParentID != nil {
					p, ok := msgs[*m.ParentID]
					if !ok || !contains(p.ChildrenIDs, id) {
						t.Fatalf("%s: message %s: parent %s does not list it", name, id, *m.ParentID)
					}
				}
			}
			if c.Chat.History.CurrentID == nil {
				continue
			}
			cur, steps := *c.Chat.History.CurrentID, 0
			for {
				m, ok := msgs[cur]
				if !ok {
					t.Fatalf("%s: chat %d: the path from currentId reaches %q, no message", name, i, cur)
				}
				if m.ParentID == nil {
					break
				}
				if cur, steps = *m.ParentID, steps+1; steps > len(msgs) {
					t.Fatalf("%s: chat %d: the path from currentId loops", name, i)
				}
			}
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// assistant-ui's LocalRuntime imports what its history adapter loads into its
// MessageRepository without converting it (@assistant-ui/core 0.3.35,
// runtimes/local/local-thread-runtime-core.js, runtime/utils/
// message-repository.js), so every message must already be the ThreadMessage
// its types (types/message.d.ts) describe and fromThreadMessageLike
// (runtime/utils/thread-message-like.js) makes: an id (unique: the repository
// keys messages by it), a createdAt; an assistant's parts text, reasoning,
// tool-call (toolCallId, toolName, args an object, argsText), source, file,
// image, data or generative-ui, its status, and metadata with unstable_state,
// unstable_annotations, unstable_data, steps and custom; a user's parts text,
// image, audio, file or data, its attachments, and metadata with custom and
// no steps (fromThreadMessageLike throws "metadata.steps is only supported for
// assistant messages"), nor unstable_*, timing or submittedFeedback; a system
// message exactly one text part ("System messages must have exactly one text
// message part"); status only on an assistant, attachments only on a user; an
// image a data:image/, https: or blob: URL (it drops any other). The file's
// headId is the message the thread opens at: the active branch's leaf.
// js/test/corpus-judges.mjs runs the package itself on every corpus file.
func TestAnAssistantUIExportIsWhatAssistantUIsRuntimeLoads(t *testing.T) {
	for name, tr := range readerTrees(t) {
		checkAssistantUIExport(t, name, tr)
	}
}

func checkAssistantUIExport(t *testing.T, name string, tr *core.Tree) {
	t.Helper()
	out, err := formats.Export(tr, formats.AssistantUI)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var file struct {
		HeadID   *string `json:"headId"`
		Messages []struct {
			Message  map[string]json.RawMessage `json:"message"`
			ParentID *string                    `json:"parentId"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(out, &file); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if path, _ := tr.ActivePath(); len(path) > 0 && (file.HeadID == nil || *file.HeadID != path[len(path)-1]) {
		t.Fatalf("%s: headId %v, the active leaf is %s", name, file.HeadID, path[len(path)-1])
	}
	if len(file.Messages) != tr.Len() {
		t.Fatalf("%s: %d messages for %d nodes", name, len(file.Messages), tr.Len())
	}
	seen := map[string]bool{}
	for _, item := range file.Messages {
		m := item.Message
		var id, role, created string
		_ = json.Unmarshal(m["id"], &id)
		_ = json.Unmarshal(m["role"], &role)
		_ = json.Unmarshal(m["createdAt"], &created)
		where := name + ": message " + id
		if id == "" || seen[id] {
			t.Fatalf("%s: no id, or an id twice", where)
		}
		if item.ParentID != nil && !seen[*item.ParentID] {
			t.Fatalf("%s: parent %s is not an earlier message", where, *item.ParentID)
		}
		seen[id] = true
		if _, err := time.Parse(time.RFC3339Nano, created); err != nil {
			t.Fatalf("%s: createdAt %q", where, created)
		}
		var parts []map[string]json.RawMessage
		if err := json.Unmarshal(m["content"], &parts); err != nil {
			t.Fatalf("%s: content is not a list of parts", where)
		}
		allowed := map[string][]string{
			"assistant": {"text", "reasoning", "tool-call", "source", "file", "image", "data", "generative-ui"},
			"user":      {"text", "image", "audio", "file", "data"},
			"system":    {"text"},
		}[role]
		if allowed == nil || (role == "system" && len(parts) != 1) {
			t.Fatalf("%s: role %q with %d parts", where, role, len(parts))
		}
		for _, p := range parts {
			var typ, image string
			_ = json.Unmarshal(p["type"], &typ)
			_ = json.Unmarshal(p["image"], &image)
			if !contains(allowed, typ) {
				t.Fatalf("%s: a %s message holds no %q part", where, role, typ)
			}
			var str string
			switch typ {
			case "text", "reasoning":
				if json.Unmarshal(p["text"], &str) != nil {
					t.Fatalf("%s: a %s part without a text", where, typ)
				}
			case "image":
				if !strings.HasPrefix(image, "data:image/") && !strings.HasPrefix(image, "https://") && !strings.HasPrefix(image, "blob:") {
					t.Fatalf("%s: image %.40q is dropped by assistant-ui", where, image)
				}
			case "tool-call":
				var args map[string]any
				var callID, toolName, argsText *string
				_ = json.Unmarshal(p["toolCallId"], &callID)
				_ = json.Unmarshal(p["toolName"], &toolName)
				_ = json.Unmarshal(p["argsText"], &argsText)
				if json.Unmarshal(p["args"], &args) != nil || args == nil || callID == nil || *callID == "" || toolName == nil || argsText == nil {
					t.Fatalf("%s: tool-call part %s", where, mustJSON(p))
				}
			}
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(m["metadata"], &meta); err != nil || meta == nil || meta["custom"] == nil {
			t.Fatalf("%s: metadata %s has no custom", where, m["metadata"])
		}
		for _, k := range []string{"unstable_state", "unstable_annotations", "unstable_data", "steps"} {
			if _, ok := meta[k]; ok != (role == "assistant") {
				t.Fatalf("%s: a %s message's metadata with %s: %v", where, role, k, ok)
			}
		}
		_, status := m["status"]
		_, attachments := m["attachments"]
		if status != (role == "assistant") || attachments != (role == "user") {
			t.Fatalf("%s: a %s message with status %v, attachments %v", where, role, status, attachments)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// SillyTavern's chat loading (SillyTavern ba6f7b7): /api/chats/get
// (src/endpoints/chats.js) splits the file on "\n", JSON.parses each line and
// silently drops one that fails; /import takes a .jsonl only when its first
// line has user_name (or name); the client's getChat (public/script.js)
// shifts that header off and reads chat_metadata (an object) from it, then
// renders each message's mes (a string) by name and is_user, dates send_date
// through parseTimestamp (public/scripts/utils.js: Unix ms, "2024-6-5 @14h
// 56m 50s 682ms", "2024-7-12@01h31m37s", "June 19, 2023 2:20pm"; anything
// else is an invalid date), and pages a message's swipes by swipe_id (an
// index into swipes, whose entry is mes) with swipe_info, one per swipe.
func TestASillyTavernExportIsWhatSillyTavernLoads(t *testing.T) {
	for name, tr := range readerTrees(t) {
		checkSillyTavernExport(t, name, tr)
	}
}

var stDate = regexp.MustCompile(`^\d+$|(\w+)\s(\d{1,2}),\s(\d{4})\s(\d{1,2}):(\d{1,2})(am|pm)|(\d{4})-(\d{1,2})-(\d{1,2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s|(\d{4})-(\d{1,2})-(\d{1,2}) @(\d{1,2})h (\d{1,2})m (\d{1,2})s (\d{1,3})ms`)

func stDateOK(v json.RawMessage) bool {
	var n float64
	if json.Unmarshal(v, &n) == nil {
		return n >= 0
	}
	var s string
	return json.Unmarshal(v, &s) == nil && stDate.MatchString(s)
}

func checkSillyTavernExport(t *testing.T, name string, tr *core.Tree) {
	t.Helper()
	out, err := formats.Export(tr, formats.SillyTavern)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, l := range lines {
		var line map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &line); err != nil || line == nil {
			t.Fatalf("%s: line %d is not one JSON object (/get drops it): %v", name, i+1, err)
		}
		if i == 0 {
			_, user := line["user_name"]
			_, nm := line["name"]
			if (!user && !nm) || line["mes"] != nil || (line["chat_metadata"] != nil && line["chat_metadata"][0] != '{') {
				t.Fatalf("%s: header %s", name, l)
			}
			continue
		}
		var m struct {
			Mes       *string           `json:"mes"`
			Name      *string           `json:"name"`
			IsUser    *bool             `json:"is_user"`
			Swipes    *[]string         `json:"swipes"`
			SwipeID   *int              `json:"swipe_id"`
			SwipeInfo *[]map[string]any `json:"swipe_info"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || m.Mes == nil || m.Name == nil || m.IsUser == nil {
			t.Fatalf("%s: line %d: mes, name or is_user missing or of the wrong type (%v)", name, i+1, err)
		}
		if d, ok := line["send_date"]; ok && !stDateOK(d) {
			t.Fatalf("%s: line %d: send_date %s is no date parseTimestamp reads", name, i+1, d)
		}
		if m.Swipes == nil && m.SwipeID == nil {
			continue
		}
		if m.Swipes == nil || m.SwipeID == nil || *m.SwipeID < 0 || *m.SwipeID >= len(*m.Swipes) || (*m.Swipes)[*m.SwipeID] != *m.Mes {
			t.Fatalf("%s: line %d: swipe_id %v does not name mes among swipes", name, i+1, m.SwipeID)
		}
		if m.SwipeInfo != nil && len(*m.SwipeInfo) != len(*m.Swipes) {
			t.Fatalf("%s: line %d: %d swipe_info for %d swipes", name, i+1, len(*m.SwipeInfo), len(*m.Swipes))
		}
	}
}

// claude.ai's importers: Cherry Studio's AnthropicImporter
// (src/renderer/src/services/import/importers/AnthropicImporter.ts 06a9426)
// takes a file only when every conversation has uuid, a chat_messages array
// and created_at and no mapping; its ClaudeImporter (ClaudeImporter.ts
// 117ddde) walks every message's content array (a message without one fails
// its conversation; a tool_use needs its name, a thinking block its
// "thinking") and imports the path from current_leaf_message_uuid up the
// parent_message_uuid links; polylogue's ClaudeAISession
// (polylogue/sources/providers/claude_ai.py d250e57) requires uuid, name,
// created_at and updated_at strings on a conversation and uuid, text and
// sender strings on every message. A claude.ai file's own messages are
// written back as they were (ownFile), older ones without a content array
// and a damaged one without a sender (both readers refuse the original too).
func TestAClaudeAIExportIsWhatItsImportersRead(t *testing.T) {
	for name, tr := range readerTrees(t) {
		checkClaudeAIExport(t, name, tr, strings.HasPrefix(name, "claudeai/"))
	}
}

func checkClaudeAIExport(t *testing.T, name string, tr *core.Tree, ownFile bool) {
	t.Helper()
	out, err := formats.Export(tr, formats.ClaudeAI)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	type block struct {
		Type     string  `json:"type"`
		Name     *string `json:"name"`
		Thinking *string `json:"thinking"`
	}
	var convs []struct {
		UUID, Name, Created, Updated *string
		Messages                     *[]struct {
			UUID    *string  `json:"uuid"`
			Text    *string  `json:"text"`
			Sender  *string  `json:"sender"`
			Created *string  `json:"created_at"`
			Content *[]block `json:"content"`
			Parent  *string  `json:"parent_message_uuid"`
		} `json:"chat_messages"`
		Mapping     json.RawMessage `json:"mapping"`
		CurrentLeaf *string         `json:"current_leaf_message_uuid"`
	}
	if err := json.Unmarshal([]byte(strings.NewReplacer(`"created_at":`, `"Created":`, `"updated_at":`, `"Updated":`).Replace(string(out))), &convs); err != nil || len(convs) == 0 {
		t.Fatalf("%s: not an array of conversations: %v", name, err)
	}
	for i, c := range convs {
		if c.UUID == nil || c.Name == nil || c.Created == nil || c.Updated == nil || c.Messages == nil || c.Mapping != nil {
			t.Fatalf("%s: conversation %d lacks uuid, name, created_at, updated_at or chat_messages, or has a mapping", name, i)
		}
		parent, known := map[string]string{}, map[string]bool{}
		for _, m := range *c.Messages {
			if m.UUID == nil {
				t.Fatalf("%s: conversation %d: a message without uuid", name, i)
			}
			if (m.Text == nil || m.Sender == nil) && !ownFile {
				t.Fatalf("%s: conversation %d: message %s lacks text or sender", name, i, *m.UUID)
			}
			if m.Content == nil && !ownFile {
				t.Fatalf("%s: message %s has no content array", name, *m.UUID)
			}
			for _, b := range derefBlocks(m.Content) {
				if (b.Type == "tool_use" && b.Name == nil) || (b.Type == "thinking" && b.Thinking == nil) {
					t.Fatalf("%s: message %s: a %s block without its name or thinking", name, *m.UUID, b.Type)
				}
			}
			known[*m.UUID] = true
			if m.Parent != nil {
				parent[*m.UUID] = *m.Parent
			}
		}
		if c.CurrentLeaf == nil {
			t.Fatalf("%s: conversation %d has no current_leaf_message_uuid", name, i)
		}
		steps := 0
		for id := *c.CurrentLeaf; id != "" && id != claudeaiRoot; id = parent[id] {
			if steps++; steps > len(*c.Messages) || !known[id] {
				t.Fatalf("%s: conversation %d: the walk from the current leaf loops or leaves the conversation", name, i)
			}
		}
	}
}

const claudeaiRoot = "00000000-0000-4000-8000-000000000000"

func derefBlocks[T any](p *[]T) []T {
	if p == nil {
		return nil
	}
	return *p
}
