// Package openwebui imports and exports Open WebUI chat exports: an array of
// chats (or one chat), each with chat.history.messages (a map of messages
// linked by parentId and childrenIds) and chat.history.currentId.
//
// An Open WebUI message already is a chat message ({"role","content",…}): the
// node's message is the entry without id, parentId and childrenIds, which the
// tree carries. The chat's other fields are kept under "openwebui_chat" in the
// message of the chat's first node. Several chats become several roots; the
// first chat's currentId is main, every other one's a branch named after its id.
package openwebui

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// ChatKey holds a chat's other fields on its first node.
const ChatKey = "openwebui_chat"

// Import reads an Open WebUI export.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	// A copy of our own: messages may be slices of it, and the caller may
	// reuse its buffer.
	data = bytes.Clone(bytes.TrimSpace(data))
	if !rawjson.Valid(data) {
		return nil, convert.Report{}, convert.NotJSON("openwebui", data)
	}
	var chats [][]byte
	switch data[0] {
	case '[':
		chats, _ = convert.Elements(data)
	case '{':
		chats = [][]byte{data}
	default:
		return nil, convert.Report{}, convert.Invalid("openwebui: expected an array of chats or one chat")
	}
	b := convert.NewBuilder("openwebui", opts)
	var active string
	var named []convert.NamedLeaf
	var ext []byte
	for ci, c := range chats {
		top, err := convert.Members(c)
		if err != nil {
			b.Report.Problemf(0, "", "chat "+strconv.Itoa(ci)+" is not an object: skipped")
			continue
		}
		if ci == 0 {
			ext, _ = convert.Get(top, convert.ExtKey)
			top = convert.Without(top, convert.ExtKey)
		}
		// The chat body is under "chat", or the object itself.
		body, nested := convert.Get(top, "chat")
		if !nested {
			body = c
		}
		bm, err := convert.Members(body)
		if err != nil {
			b.Report.Problemf(0, "", "chat "+strconv.Itoa(ci)+" has no chat object: skipped")
			continue
		}
		hist, _ := convert.Get(bm, "history")
		hm, err := convert.Members(hist)
		msgsRaw, _ := convert.Get(hm, "messages")
		entries, err2 := convert.Members(msgsRaw)
		if err != nil || err2 != nil {
			b.Report.Problemf(0, "", "chat "+strconv.Itoa(ci)+" has no history.messages: skipped")
			continue
		}
		// The header: everything but the history and the linear copy of it.
		chatHdr := convert.NewObject(nil).Members(convert.Without(bm, "history", "messages")).Bytes()
		var header []byte
		if nested {
			header = convert.NewObject(nil).Members(convert.Set(top, "chat", chatHdr)).Bytes()
		} else {
			header = convert.NewObject(nil).Raw("chat", chatHdr).Bytes()
		}
		inFile := make(map[string]bool, len(entries))
		for _, e := range entries {
			inFile[e.Key] = true
		}
		first := true
		b.BeginConversation()
		for _, e := range entries {
			b.Report.Records++
			msg, label, at, err := derive(e.Value)
			if err != nil {
				b.Report.Problemf(0, e.Key, err.Error()+": skipped")
				continue
			}
			em, _ := convert.Members(e.Value)
			kids, _ := convert.Get(em, "childrenIds")
			list, _ := convert.Elements(kids)
			for _, k := range list {
				if id := rawjson.Unquote(k); len(k) > 0 && k[0] == '"' && !inFile[id] {
					b.Report.Problemf(0, e.Key, "childrenIds names "+strconv.Quote(id)+", which is not a message of the chat: ignored")
				}
			}
			if first {
				if x, _ := convert.ReadNodeExt(em); x.Message == nil {
					msg = convert.AppendMember(msg, ChatKey, header)
				}
				first = false
			}
			b.Add(0, e.Key, convert.Str(em, "parentId"), msg, label, at)
		}
		cur := b.Local(convert.Str(hm, "currentId"))
		b.EndConversation()
		if !b.Inserted(cur) {
			if fb := fallbackLeaf(b, entries, inFile); fb != "" {
				if cur != "" {
					b.Report.Problemf(0, cur, "currentId is not a message of the chat: the active leaf is "+strconv.Quote(fb)+", the latest leaf under a root of the chat")
				}
				cur = fb
			}
		}
		if ci == 0 {
			active = cur
		} else if cur != "" {
			name := convert.Str(top, "id")
			if name == "" {
				name = "chat-" + strconv.Itoa(ci+1)
			}
			named = append(named, convert.NamedLeaf{Name: name, Leaf: cur})
		}
	}
	if len(b.IDs()) == 0 && b.Report.Records == 0 {
		return nil, *b.Report, convert.Invalid("openwebui: no chat with history.messages")
	}
	t, rep := b.Finish(active, named, ext)
	return t, *rep, nil
}

// fallbackLeaf picks the leaf Open WebUI would show when currentId names no
// message: among the chat's leaves, those under a real root (a message whose
// parentId is null, not one whose parent is missing from the file) first,
// then the latest by timestamp, then the deepest.
func fallbackLeaf(b *convert.Builder, entries []convert.Member, inFile map[string]bool) string {
	type cand struct {
		id     string
		orphan bool
		at     int64
		depth  int
	}
	best := cand{}
	found := false
	inTree := make(map[string]string, len(entries)) // the chat's ids as the tree has them → the file's
	for _, e := range entries {
		inTree[b.Local(e.Key)] = e.Key
	}
	for _, e := range entries {
		leaf := b.Local(e.Key)
		if !b.Inserted(leaf) {
			continue
		}
		n, ok := b.Tree.Node(leaf)
		if !ok || len(n.Children) > 0 {
			continue
		}
		c := cand{id: leaf, at: n.CreatedAtMs}
		for id := leaf; id != "" && c.depth <= b.Tree.Len(); c.depth++ {
			p, _ := b.Tree.Node(id)
			if p.Parent == "" {
				em, _ := convert.Members(mustGet(entries, inTree[id]))
				if pid := convert.Str(em, "parentId"); pid != "" && !inFile[pid] {
					c.orphan = true
				}
			}
			id = p.Parent
		}
		better := !found || (best.orphan && !c.orphan) ||
			(best.orphan == c.orphan && (c.at > best.at || (c.at == best.at && c.depth > best.depth)))
		if better {
			best, found = c, true
		}
	}
	return best.id
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}

var structural = []string{"id", "parentId", "childrenIds", convert.ExtKey}

func derive(rec []byte) (core.Message, string, int64, error) {
	ms, err := convert.Members(rec)
	if err != nil {
		return nil, "", 0, err
	}
	msg, err := core.ParseMessage(convert.NewObject(nil).Members(convert.Without(ms, structural...)).Bytes())
	if err != nil {
		return nil, "", 0, convert.Invalid("message has no string role")
	}
	var at int64
	if ts, ok := convert.Get(ms, "timestamp"); ok {
		at, _ = convert.ParseSeconds(ts)
		if n, err := strconv.ParseInt(string(ts), 10, 64); err == nil && n > 1e11 {
			at = n // already milliseconds
		}
	}
	return convert.WithNodeExt(ms, msg, at)
}

// Export writes t as an array of Open WebUI chats.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	out := []byte{'['}
	for ci, c := range convert.Conversations(t, ChatKey) {
		if ci > 0 {
			out = append(out, ',')
		}
		header := c.Header
		if header == nil {
			header = []byte(`{"title":"","chat":{"title":""}}`)
		}
		top, _ := convert.Members(header)
		chatHdr, _ := convert.Get(top, "chat")
		cm, _ := convert.Members(chatHdr)
		kids := make(map[string][]string)
		for _, n := range c.Nodes {
			kids[n.Parent] = append(kids[n.Parent], n.ID)
		}
		entries := convert.NewObject(nil)
		for i, n := range c.Nodes {
			core.TickBytes(len(n.Message))
			entries.Raw(n.ID, record(t, n, kids[n.ID], header, i == 0))
		}
		hist := convert.NewObject(nil).Raw("messages", entries.Bytes())
		if c.Current != "" {
			hist.String("currentId", c.Current)
		} else {
			hist.Raw("currentId", []byte("null"))
		}
		// No linear "messages" copy: Open WebUI reads history (and a second
		// copy of every message on the path would double the file).
		chat := convert.NewObject(nil).Members(cm).Raw("history", hist.Bytes()).Bytes()
		o := convert.NewObject(out).Members(convert.Set(top, "chat", chat))
		if ci == 0 {
			o.Raw(convert.ExtKey, convert.TreeExt(t))
		}
		out = o.Bytes()
	}
	return append(out, ']'), nil
}

func record(t *core.Tree, n core.Node, children []string, header []byte, first bool) []byte {
	o := convert.NewObject(nil).String("id", n.ID)
	if n.Parent != "" {
		o.String("parentId", n.Parent)
	} else {
		o.Raw("parentId", []byte("null"))
	}
	if children == nil {
		children = []string{}
	}
	o.Raw("childrenIds", rawjson.AppendStrings(nil, children))
	msg := n.Message
	if first {
		msg = convert.WithoutKey(msg, ChatKey)
	}
	if !ownShape(msg) {
		msg = native(t, n, msg)
	}
	ms, _ := convert.Members(msg)
	ms = convert.Without(ms, structural...)
	if _, ok := convert.Get(ms, "timestamp"); !ok {
		ms = append(ms, convert.Member{Key: "timestamp", Value: rawjson.AppendInt(nil, n.CreatedAtMs/1000)})
	}
	rec := o.Members(ms).Bytes()
	d := derive
	if first {
		d = func(r []byte) (core.Message, string, int64, error) {
			m, l, a, err := derive(r)
			if rm, _ := convert.Members(r); err == nil && !convert.HasExtMessage(rm) {
				m = convert.AppendMember(m, ChatKey, header)
			}
			return m, l, a, err
		}
	}
	return convert.Faithful(rec, n, d)
}
