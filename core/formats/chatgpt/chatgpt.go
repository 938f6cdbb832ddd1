// Package chatgpt imports and exports ChatGPT's conversations.json: an array
// of conversations, each a "mapping" of nodes linked by "parent" and
// "children", with "current_node" the leaf the user last saw.
//
// Every mapping entry with a message becomes a node whose message is
// {"role":author.role,"content":text,"chatgpt":entry} (the entry without its
// "children", which are rebuilt from the parents). Entries without a message —
// the null-message root — are not messages: they are kept, with the rest of
// the conversation's fields, under "chatgpt_conversation" in the message of
// the conversation's first node, and written back on export. Several
// conversations in one file become several roots; the first one's
// current_node is main, every other one's a branch named after its id.
package chatgpt

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Key is the message member that holds the original mapping entry.
const Key = "chatgpt"

// ConversationKey holds the conversation's other fields and its null-message
// entries, on the conversation's first node.
const ConversationKey = "chatgpt_conversation"

// Import reads a conversations.json (an array of conversations, or one).
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	// One compact copy of our own (messages may be slices of it, and the
	// caller may reuse its buffer), so every value below is a compact slice
	// of it and is walked without being validated again; ids taken from it
	// are cloned.
	data, err := convert.OwnCompact("chatgpt", data)
	if err != nil {
		return nil, convert.Report{}, err
	}
	convs, err := convert.SplitConversations("chatgpt", data)
	if err != nil {
		return nil, convert.Report{}, err
	}
	b := convert.NewBuilder("chatgpt", opts)
	var active string
	var named []convert.NamedLeaf
	var ext []byte
	for ci, c := range convs {
		ms, err := convert.FastMembers(c)
		if err != nil {
			b.Report.Problemf(0, "", "conversation "+strconv.Itoa(ci)+" is not an object: skipped")
			continue
		}
		if ci == 0 {
			ext, _ = convert.Get(ms, convert.ExtKey)
		}
		cur := importConversation(b, ci, ms)
		if ci == 0 {
			active = cur
		} else if cur != "" {
			name := convert.Str(ms, "id")
			if name == "" {
				name = convert.Str(ms, "conversation_id")
			}
			if name == "" {
				name = "conversation-" + strconv.Itoa(ci+1)
			}
			named = append(named, convert.NamedLeaf{Name: name, Leaf: cur})
		}
	}
	if b.Report.Records == 0 && len(b.IDs()) == 0 {
		return nil, *b.Report, convert.Invalid("chatgpt: no conversation with a mapping")
	}
	t, rep := b.Finish(active, named, ext)
	if len(convs) > 1 {
		rep.Note(strconv.Itoa(len(convs)) + " conversations: one root each; the first one's current_node is main, the others' are branches named after their ids")
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

// importConversation adds one conversation's nodes and returns its
// current_node.
func importConversation(b *convert.Builder, ci int, ms []convert.Member) string {
	mapping, _ := convert.Get(ms, "mapping")
	entries, err := convert.FastMembers(mapping)
	if err != nil {
		b.Report.Problemf(0, "", "conversation "+strconv.Itoa(ci)+" has no mapping object: skipped")
		return ""
	}
	// Parents named only in some entry's children list, read when an entry
	// has no parent field.
	var listed map[string]string
	listedParent := func(id string) string {
		if listed == nil {
			listed = make(map[string]string)
			for _, e := range entries {
				kids, _ := rawjson.Lookup(e.Value, "children")
				list, _ := convert.Elements(kids)
				for _, k := range list {
					if len(k) > 0 && k[0] == '"' {
						listed[rawjson.Unquote(k)] = strings.Clone(e.Key)
					}
				}
			}
		}
		return listed[id]
	}
	b.BeginConversation()
	defer b.EndConversation()
	var real []entry
	scaffold := convert.NewObject(nil)
	isScaffold := make(map[string]bool)
	for _, e := range entries {
		b.Report.Records++
		em, err := convert.FastMembers(e.Value)
		if err != nil {
			b.Report.Problemf(0, e.Key, "mapping entry is not an object: kept in chatgpt_conversation")
			scaffold.Raw(e.Key, e.Value)
			isScaffold[e.Key] = true
			continue
		}
		rec := convert.NewObject(nil).Members(convert.Without(em, "children")).Bytes()
		msg, _ := convert.Get(em, "message")
		if convert.IsNull(msg) {
			scaffold.Raw(e.Key, rec)
			isScaffold[e.Key] = true
			continue
		}
		dmsg, dlabel, dat, err := derive(rec)
		if err != nil {
			b.Report.Problemf(0, e.Key, err.Error()+": kept in chatgpt_conversation")
			scaffold.Raw(e.Key, rec)
			isScaffold[e.Key] = true
			continue
		}
		parent := convert.Str(em, "parent")
		if parent == "" {
			parent = listedParent(e.Key)
			if parent != "" {
				b.Report.Problemf(0, e.Key, "no parent field: parent "+strconv.Quote(parent)+" taken from its children list")
			}
		}
		_, hasExt := convert.Get(em, convert.ExtKey)
		real = append(real, entry{id: strings.Clone(e.Key), parent: parent, msg: dmsg, label: dlabel, at: dat, hasExt: hasExt})
	}
	// A record under a null-message entry (or under nothing) is a root.
	var header []byte
	for i, e := range real {
		msg, label, at := e.msg, e.label, e.at
		if i == 0 {
			conv := convert.Without(ms, "mapping", "current_node", convert.ExtKey)
			header = convert.NewObject(nil).Members(conv).Raw("mapping", scaffold.Bytes()).Bytes()
			if !e.hasExt {
				msg = appendMember(msg, ConversationKey, header)
			}
		}
		parent := e.parent
		if isScaffold[parent] {
			parent = ""
		}
		b.Add(0, e.id, parent, msg, label, at)
	}
	if len(real) == 0 {
		b.Report.Problemf(0, "", "conversation "+strconv.Itoa(ci)+" has no message: nothing imported from it")
	}
	return b.Local(convert.Str(ms, "current_node"))
}

func mustMembers(v []byte) []convert.Member {
	ms, _ := convert.Members(v)
	return ms
}

func appendMember(obj []byte, key string, v []byte) []byte {
	out := make([]byte, 0, len(obj)+len(key)+len(v)+4)
	out = append(out, obj[:len(obj)-1]...)
	out = append(out, ',')
	out = rawjson.AppendString(out, key)
	out = append(out, ':')
	out = append(out, v...)
	return append(out, '}')
}

// derive turns an entry (without children) into a node's message, label and
// time; a "sessiontree" member overrides them.
func derive(rec []byte) (core.Message, string, int64, error) {
	ms, err := convert.FastMembers(rec)
	if err != nil {
		return nil, "", 0, err
	}
	base, kept := convert.Without(ms, convert.ExtKey), rec
	if len(base) != len(ms) {
		kept = convert.NewObject(nil).Members(base).Bytes()
	}
	m, _ := convert.Get(base, "message")
	author, _ := rawjson.Lookup(m, "author")
	role, ok := rawjson.LookupString(author, "role")
	if !ok || len(m) == 0 || m[0] != '{' {
		return nil, "", 0, convert.Invalid("message has no author.role")
	}
	var at int64
	if ct, ok := rawjson.Lookup(m, "create_time"); ok && !convert.IsNull(ct) {
		at, _ = convert.ParseSeconds(ct)
	}
	msg := convert.Wrap(role, text(m), Key, kept)
	return convert.WithNodeExt(ms, msg, at)
}

// text renders a ChatGPT message's content.
func text(m []byte) string {
	c, _ := rawjson.Lookup(m, "content")
	if parts, ok := rawjson.Lookup(c, "parts"); ok {
		return convert.PartsText(parts)
	}
	for _, k := range []string{"text", "result"} {
		if s, ok := rawjson.LookupString(c, k); ok {
			return s
		}
	}
	return ""
}

// Export writes t as a conversations.json array: one conversation per root
// that carries a chatgpt_conversation (roots without one join the conversation
// before them), current_node the active leaf (or a branch leaf in it), and the
// branches under "sessiontree" in the first conversation.
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	active := convert.ActiveSet(t)
	groups := convert.Groups(t, active)
	type conv struct {
		header []byte
		nodes  []core.Node
	}
	var convs []*conv
	for _, g := range groups {
		var h []byte
		for _, n := range g.Nodes {
			core.TickBytes(len(n.Message))
			if v, ok := rawjson.Lookup(n.Message, ConversationKey); ok {
				h = v
				break
			}
		}
		// A root joins the conversation before it only when it came from
		// that conversation (a ChatGPT mapping with several roots); any
		// other root is a conversation of its own, as ChatGPT has one
		// root per conversation (LibreChat's importer, for one, reads each
		// conversation as one tree).
		if h != nil || len(convs) == 0 || convs[len(convs)-1].header == nil || !fromChatGPT(g.Nodes[0]) {
			convs = append(convs, &conv{header: h})
		}
		c := convs[len(convs)-1]
		c.nodes = append(c.nodes, g.Nodes...)
	}
	if len(convs) == 0 {
		convs = append(convs, &conv{})
	}
	leaves := make(map[string][]string) // leaf → branch names
	for _, br := range t.Branches() {
		leaves[br.Leaf] = append(leaves[br.Leaf], br.Name)
	}
	activeLeaf := ""
	if br, ok := t.LookupBranch(t.ActiveBranch()); ok {
		activeLeaf = br.Leaf
	}
	out := []byte{'['}
	for ci, c := range convs {
		if ci > 0 {
			out = append(out, ',')
		}
		header := c.header
		if header == nil {
			header = madeUpHeader(c.nodes)
		}
		hm, _ := convert.Members(header)
		scaffold, _ := convert.Get(hm, "mapping")
		sEntries, _ := convert.Members(scaffold)
		// Children of every written entry, from the parents.
		kids := make(map[string][]string)
		recs := make([][]byte, 0, len(sEntries)+len(c.nodes))
		ids := make([]string, 0, cap(recs))
		for _, e := range sEntries {
			p := convert.Str(mustMembers(e.Value), "parent")
			if p != "" {
				kids[p] = append(kids[p], e.Key)
			}
			recs, ids = append(recs, e.Value), append(ids, e.Key)
		}
		current := ""
		scaffoldRoot := ""
		if len(sEntries) > 0 && convert.IsNull(mustGet(mustMembers(sEntries[0].Value), "parent")) {
			scaffoldRoot = sEntries[0].Key
		}
		for i, n := range c.nodes {
			core.TickBytes(len(n.Message))
			rec := record(t, n, header, i == 0, scaffoldRoot)
			p := convert.Str(mustMembers(rec), "parent")
			if p != "" {
				kids[p] = append(kids[p], n.ID)
			}
			recs, ids = append(recs, rec), append(ids, n.ID)
			if n.ID == activeLeaf || (current == "" && len(leaves[n.ID]) > 0) {
				current = n.ID
			}
		}
		conv := convert.NewObject(out)
		for _, m := range convert.Without(hm, "mapping") {
			conv.Raw(m.Key, m.Value)
		}
		mapping := convert.NewObject(nil)
		for i, rec := range recs {
			core.TickBytes(len(rec))
			e := rec[:len(rec)-1]
			e = append(e[:len(e):len(e)], `,"children":`...)
			e = rawjson.AppendStrings(e, nonNil(kids[ids[i]]))
			mapping.Raw(ids[i], append(e, '}'))
		}
		conv.Raw("mapping", mapping.Bytes())
		if current != "" {
			conv.String("current_node", current)
		} else {
			conv.Raw("current_node", []byte("null"))
		}
		if ci == 0 {
			conv.Raw(convert.ExtKey, convert.TreeExt(t))
		}
		out = conv.Bytes()
	}
	return append(out, ']'), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// record is the entry written for n (without children): its original entry
// when the node came from ChatGPT, else one made from its neutral form (see
// native) under the conversation's root scaffold, plus a "sessiontree" member
// for whatever the entry does not reproduce.
func record(t *core.Tree, n core.Node, header []byte, first bool, scaffoldRoot string) []byte {
	rec, ok := ownEntry(n)
	if !ok {
		o := convert.NewObject(nil).String("id", n.ID).Raw("message", native(t, n))
		switch {
		case n.Parent != "":
			o.String("parent", n.Parent)
		case scaffoldRoot != "":
			o.String("parent", scaffoldRoot)
		default:
			o.Raw("parent", []byte("null"))
		}
		rec = o.Bytes()
	}
	d := derive
	if first {
		d = func(r []byte) (core.Message, string, int64, error) {
			msg, label, at, err := derive(r)
			if err == nil {
				if ms, _ := convert.Members(r); !convert.HasExtMessage(ms) {
					msg = appendMember(msg, ConversationKey, header)
				}
			}
			return msg, label, at, err
		}
	}
	return convert.Faithful(rec, n, d)
}

// ownEntry returns the ChatGPT entry n came from, when it still fits n.
func ownEntry(n core.Node) ([]byte, bool) {
	rec, ok := rawjson.Lookup(n.Message, Key)
	if !ok {
		return nil, false
	}
	ms, err := convert.Members(rec)
	if err != nil || convert.Str(ms, "id") != n.ID || !parentMatches(ms, n) {
		return nil, false
	}
	return rec, true
}

func fromChatGPT(n core.Node) bool {
	_, ok := ownEntry(n)
	return ok
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}

// madeUpHeader is the conversation written for nodes that did not come from
// ChatGPT: the fields a conversations.json export has (title, times, ids) and
// the null-message root every ChatGPT conversation starts from.
func madeUpHeader(nodes []core.Node) []byte {
	var at, last int64
	id := "conversation"
	if len(nodes) > 0 {
		at, id = nodes[0].CreatedAtMs, nodes[0].ID
	}
	for _, n := range nodes {
		if n.CreatedAtMs > last {
			last = n.CreatedAtMs
		}
	}
	root := convert.NewObject(nil).String("id", scaffoldID).Raw("message", []byte("null")).Raw("parent", []byte("null")).Bytes()
	return convert.NewObject(nil).String("title", convert.Title(nodes, "")).Raw("create_time", convert.FormatSeconds(at)).Raw("update_time", convert.FormatSeconds(last)).
		Raw("mapping", convert.NewObject(nil).Raw(scaffoldID, root).Bytes()).
		String("conversation_id", id).String("id", id).Bytes()
}

// scaffoldID is the id ChatGPT gives the null-message root of a conversation.
const scaffoldID = "client-created-root"

// parentMatches reports whether the entry's parent agrees with the tree: the
// same parent, or for a root any parent outside the tree (a null-message root).
func parentMatches(ms []convert.Member, n core.Node) bool {
	p := convert.Str(ms, "parent")
	if n.Parent != "" {
		return p == n.Parent
	}
	return true
}
