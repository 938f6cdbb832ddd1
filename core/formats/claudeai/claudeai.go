// Package claudeai imports and exports the conversations.json of a claude.ai
// data export: an array of conversations, each with a flat list
// "chat_messages" whose "parent_message_uuid" links form the tree (siblings
// are edits and retries; a root's parent is RootParent). Older exports have
// no parent field: each message follows the one before it.
//
// Every message becomes a node whose message is
// {"role":…,"content":…,"claudeai":record}: the role from "sender" (human is
// user), the content the record's content blocks (thinking, tool_use,
// tool_result as the Anthropic API names them) after one text block per
// attachment whose text claude.ai extracted, or its "text" when it has no
// blocks; the record is kept whole and written back on export. The
// conversation's other fields are kept under "claudeai_conversation" on its
// first node, with any chat_messages entry that is not a message. Main ends at
// the conversation's "current_leaf_message_uuid" when it names a message,
// else at its newest leaf; several conversations become several roots, the
// first one's current leaf main, every other one's a branch named after its
// uuid.
package claudeai

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Key is the message member that holds the original chat_messages entry.
const Key = "claudeai"

// ConversationKey holds the conversation's other fields on its first node.
const ConversationKey = "claudeai_conversation"

// RootParent is the parent_message_uuid claude.ai gives a conversation's
// first messages.
const RootParent = "00000000-0000-4000-8000-000000000000"

// Import reads a conversations.json (an array of conversations, or one).
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	// One compact copy of our own (messages may be slices of it, and the
	// caller may reuse its buffer), so every value below is a compact slice
	// of it and is walked without being validated again; ids taken from it
	// are cloned.
	data, err := convert.OwnCompact("claudeai", data)
	if err != nil {
		return nil, convert.Report{}, err
	}
	convs, err := convert.SplitConversations("claudeai", data)
	if err != nil {
		return nil, convert.Report{}, err
	}
	b := convert.NewBuilder("claudeai", opts)
	var active string
	messages := 0 // added: placed now, or at Finish (a message whose parent is missing, or in a loop)
	var named []convert.NamedLeaf
	var ext []byte
	for ci, c := range convs {
		ms, err := convert.FastMembers(c)
		if err != nil {
			b.Report.Problemf(0, "", "conversation "+strconv.Itoa(ci+1)+" is not an object: skipped")
			continue
		}
		if ci == 0 {
			ext, _ = convert.Get(ms, convert.ExtKey)
		}
		cur, n := importConversation(b, ci, ms)
		messages += n
		if ci == 0 {
			active = cur
		} else if cur != "" {
			name := convert.Str(ms, "uuid")
			if name == "" {
				name = "conversation-" + strconv.Itoa(ci+1)
			}
			named = append(named, convert.NamedLeaf{Name: name, Leaf: cur})
		}
	}
	if messages == 0 {
		return nil, *b.Report, convert.Invalid("claudeai: no conversation with chat_messages holding a message")
	}
	t, rep := b.Finish(active, named, ext)
	if len(convs) > 1 {
		rep.Note(strconv.Itoa(len(convs)) + " conversations: their messages are roots of one tree; the first one's current leaf is main, the others' are branches named after their uuids")
	}
	return t, *rep, nil
}

type entry struct {
	id, parent string
	msg        core.Message
	label      string
	at         int64
	hasExt     bool
}

// importConversation adds one conversation's messages and returns its
// current leaf (the one current_leaf_message_uuid names, else the newest)
// and how many it added.
func importConversation(b *convert.Builder, ci int, ms []convert.Member) (string, int) {
	where := "conversation " + strconv.Itoa(ci+1)
	list, ok := convert.Get(ms, "chat_messages")
	items, err := convert.Elements(list)
	if !ok || err != nil {
		b.Report.Problemf(0, convert.Str(ms, "uuid"), where+" has no chat_messages list: nothing imported from it")
		return "", 0
	}
	var entries []entry
	var bad [][]byte
	prev := ""
	for i, it := range items {
		b.Report.Records++
		msg, label, at, err := derive(it)
		em, _ := convert.FastMembers(it)
		if err != nil {
			b.Report.Problemf(0, convert.Str(em, "uuid"), where+", message "+strconv.Itoa(i+1)+": "+err.Error()+": kept in claudeai_conversation")
			bad = append(bad, it)
			continue
		}
		e := entry{id: strings.Clone(convert.Str(em, "uuid")), msg: msg, label: label, at: at}
		if p, has := convert.Get(em, "parent_message_uuid"); has {
			if s := convert.Str(em, "parent_message_uuid"); s != RootParent && !convert.IsNull(p) {
				e.parent = strings.Clone(s)
			}
		} else {
			e.parent = prev // an older export: each message follows the one before it
		}
		_, e.hasExt = convert.Get(em, convert.ExtKey)
		entries = append(entries, e)
		prev = e.id
	}
	if len(entries) == 0 {
		b.Report.Problemf(0, convert.Str(ms, "uuid"), where+" has no message: nothing imported from it")
		return "", 0
	}
	// The header: every field but the messages, which it keeps only when
	// they are not messages (in their place, so an export keeps the order),
	// and the current leaf, which an export writes from the tree.
	header := convert.NewObject(nil)
	for _, m := range convert.Without(ms, convert.ExtKey, "current_leaf_message_uuid") {
		if m.Key == "chat_messages" {
			header.Raw(m.Key, convert.RawArray(bad))
		} else {
			header.Raw(m.Key, m.Value)
		}
	}
	hdr := header.Bytes()
	ids := make([]string, len(entries))
	b.BeginConversation()
	defer b.EndConversation()
	for i, e := range entries {
		msg := e.msg
		if i == 0 && !e.hasExt {
			msg = convert.AppendMember(msg, ConversationKey, hdr)
		}
		ids[i] = b.Add(0, e.id, e.parent, msg, e.label, e.at)
	}
	if cur := convert.Str(ms, "current_leaf_message_uuid"); cur != "" {
		for _, id := range ids {
			if id == b.Local(cur) {
				return id, len(entries)
			}
		}
		b.Report.Problemf(0, cur, "current_leaf_message_uuid of "+where+" is not one of its messages: main ends at its newest leaf")
	}
	return newestLeaf(entries, ids), len(entries)
}

// newestLeaf is the leaf created last (the later in the file on a tie): the
// reply claude.ai shows when the export names no current leaf.
func newestLeaf(entries []entry, ids []string) string {
	parents := make(map[string]bool, len(entries))
	for _, e := range entries {
		parents[e.parent] = true
	}
	best, at := "", int64(0)
	for i, e := range entries {
		if parents[e.id] { // the conversation's own ids: ids[i] may be renamed
			continue
		}
		if best == "" || e.at >= at {
			best, at = ids[i], e.at
		}
	}
	return best
}

// role maps claude.ai's sender to a chat role.
func role(sender string) string {
	if sender == "human" {
		return "user"
	}
	return sender
}

// derive turns a chat_messages entry into a node's message, label and time;
// a "sessiontree" member overrides them.
func derive(rec []byte) (core.Message, string, int64, error) {
	ms, err := convert.FastMembers(rec)
	if err != nil {
		return nil, "", 0, convert.Invalid("not an object")
	}
	base := convert.Without(ms, convert.ExtKey)
	sender := convert.Str(base, "sender")
	if sender == "" {
		return nil, "", 0, convert.Invalid("message has no sender")
	}
	var at int64
	if ts := convert.Str(base, "created_at"); ts != "" {
		at, _ = convert.ParseISO(ts)
	}
	o := convert.NewObject(nil).String("role", role(sender)).Raw("content", content(base))
	msg := core.Message(o.Raw(Key, convert.NewObject(nil).Members(base).Bytes()).Bytes())
	return convert.WithNodeExt(ms, msg, at)
}

// content is the message's content as the model saw it: a text block per
// attachment claude.ai extracted text from, then the content blocks (or the
// text when there are none); the text alone as a string.
func content(ms []convert.Member) []byte {
	var blocks [][]byte
	atts, _ := convert.Get(ms, "attachments")
	list, _ := convert.Elements(atts)
	for _, a := range list {
		text, ok := rawjson.LookupString(a, "extracted_content")
		if !ok {
			continue
		}
		name, _ := rawjson.LookupString(a, "file_name")
		blocks = append(blocks, convert.NewObject(nil).String("type", "text").String("text", attachmentText(name, text)).Bytes())
	}
	c, _ := convert.Get(ms, "content")
	parts, err := convert.Elements(c)
	if err != nil || len(parts) == 0 {
		text, _ := convert.Get(ms, "text")
		if len(text) == 0 || text[0] != '"' {
			text = []byte(`""`)
		}
		if len(blocks) == 0 {
			return text
		}
		parts = [][]byte{convert.NewObject(nil).Raw("type", []byte(`"text"`)).Raw("text", text).Bytes()}
	}
	return convert.RawArray(append(blocks, parts...))
}

// attachmentText is how an attachment's extracted text reaches the model.
func attachmentText(name, text string) string {
	return "<attachment name=\"" + name + "\">\n" + text + "\n</attachment>"
}
