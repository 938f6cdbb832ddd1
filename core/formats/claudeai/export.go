package claudeai

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Export writes t as a conversations.json array: one conversation per root
// that carries a claudeai_conversation (a root without one is an edit of the
// first message of the conversation before it), every node a chat_messages
// entry with its parent_message_uuid, current_leaf_message_uuid the active
// leaf (or a branch leaf in it), and the branches under "sessiontree" in the
// first conversation.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	out := []byte{'['}
	for ci, c := range convert.Conversations(t, ConversationKey) {
		if ci > 0 {
			out = append(out, ',')
		}
		header := c.Header
		if header == nil {
			header = madeUpHeader(c.Nodes)
		}
		hm, _ := convert.Members(header)
		if _, ok := convert.Get(hm, "chat_messages"); !ok {
			hm = append(hm, convert.Member{Key: "chat_messages", Value: []byte("[]")})
		}
		bad, _ := convert.Elements(mustGet(hm, "chat_messages"))
		list := convert.RawArray(bad)
		list = list[:len(list)-1]
		prev := ""
		for i, n := range c.Nodes {
			core.TickBytes(len(n.Message))
			if len(list) > 1 {
				list = append(list, ',')
			}
			list = append(list, record(t, n, prev, header, i == 0)...)
			prev = n.ID
		}
		hm = convert.Set(hm, "chat_messages", append(list, ']'))
		if c.Current != "" {
			hm = convert.Set(hm, "current_leaf_message_uuid", convert.Quote(c.Current))
		}
		o := convert.NewObject(out).Members(convert.Without(hm, convert.ExtKey))
		if ci == 0 {
			o.Raw(convert.ExtKey, convert.TreeExt(t))
		}
		out = o.Bytes()
	}
	return append(out, ']'), nil
}

// record is the entry written for n: the entry it came from when it came
// from claude.ai (with its parent_message_uuid set when the tree moved it),
// else one made from its neutral form (see native), plus a "sessiontree"
// member for whatever the entry does not give back. prev is the node written
// before it, which an entry without a parent field follows.
func record(t *core.Tree, n core.Node, prev string, header []byte, first bool) []byte {
	rec, ok := ownEntry(n)
	if !ok {
		rec = native(t, n)
	}
	if impliedParent(rec, prev) != n.Parent {
		p := n.Parent
		if p == "" {
			p = RootParent
		}
		ms, _ := convert.Members(rec)
		rec = convert.NewObject(nil).Members(convert.Set(ms, "parent_message_uuid", convert.Quote(p))).Bytes()
	}
	d := derive
	if first {
		d = func(r []byte) (core.Message, string, int64, error) {
			msg, label, at, err := derive(r)
			if err == nil {
				if ms, _ := convert.Members(r); !convert.HasExtMessage(ms) {
					msg = convert.AppendMember(msg, ConversationKey, header)
				}
			}
			return msg, label, at, err
		}
	}
	return convert.Faithful(rec, n, d)
}

// impliedParent is the parent an import gives rec: its parent_message_uuid
// ("" for the root parent or null), or prev when it has none.
func impliedParent(rec []byte, prev string) string {
	p, ok := rawjson.Lookup(rec, "parent_message_uuid")
	if !ok {
		return prev
	}
	if convert.IsNull(p) || p[0] != '"' {
		return ""
	}
	if s := rawjson.Unquote(p); s != RootParent {
		return s
	}
	return ""
}

// ownEntry returns the claude.ai entry n came from, when it is n's.
func ownEntry(n core.Node) ([]byte, bool) {
	rec, ok := rawjson.Lookup(n.Message, Key)
	if !ok || len(rec) == 0 || rec[0] != '{' {
		return nil, false
	}
	if id, _ := rawjson.LookupString(rec, "uuid"); id != n.ID {
		return nil, false
	}
	return rec, true
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}

// madeUpHeader is the conversation written for nodes that did not come from
// claude.ai: the fields every export has (uuid, name, times).
func madeUpHeader(nodes []core.Node) []byte {
	var at, last int64
	id := "conversation"
	if len(nodes) > 0 {
		at, id = nodes[0].CreatedAtMs, "conversation-"+nodes[0].ID
	}
	for _, n := range nodes {
		last = max(last, n.CreatedAtMs)
	}
	return convert.NewObject(nil).String("uuid", id).String("name", convert.Title(nodes, "")).String("summary", "").
		String("created_at", convert.FormatISO(at)).String("updated_at", convert.FormatISO(last)).
		Raw("chat_messages", []byte("[]")).Bytes()
}
