package sillytavern

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Export writes t as a SillyTavern chat: the header, then one line per node
// of the active path whose swipes are the node and its siblings (swipe_id
// the node). What the lines cannot show — the nodes below a swipe off the
// path, the branches — is under "sessiontree" in the header's chat_metadata
// (see withExt).
func Export(t *core.Tree) ([]byte, error) {
	if err := convert.Corrupt(t); err != nil {
		return nil, err
	}
	path, _ := t.ActivePath()
	header := headerOf(t, path)
	shown := make(map[string]bool)
	var lines [][]byte
	for i, id := range path {
		n, _ := t.Node(id)
		core.TickBytes(len(n.Message))
		sibs := []string{id}
		if n.Parent != "" {
			p, _ := t.Node(n.Parent)
			sibs = p.Children
		} else if all, _, err := t.Siblings(id); err == nil {
			// The tree's root first, so that an import makes it the root again.
			sibs = []string{t.Root()}
			for _, r := range all {
				if r != t.Root() {
					sibs = append(sibs, r)
				}
			}
		}
		for _, s := range sibs {
			shown[s] = true
		}
		lines = append(lines, group(t, sibs, id, i+2, header, i == 0))
	}
	var hiddenNodes [][]byte
	for _, g := range convert.Groups(t, nil) {
		for _, n := range g.Nodes {
			core.Tick()
			if shown[n.ID] {
				continue
			}
			o := convert.NewObject(nil).String("id", n.ID).String("parent", n.Parent).Raw("message", n.Message)
			if n.Label != "" {
				o.String("label", n.Label)
			}
			hiddenNodes = append(hiddenNodes, o.Int("created_at_ms", n.CreatedAtMs).Bytes())
		}
	}
	ext := convert.TreeExt(t)
	ext = append(ext[:len(ext)-1], `,"nodes":`...)
	ext = append(append(ext, convert.RawArray(hiddenNodes)...), '}')
	hm, _ := convert.Members(header)
	out := convert.NewObject(nil).Members(withExt(hm, ext)).Bytes()
	out = append(out, '\n')
	return convert.AppendLines(out, lines), nil
}

// withExt puts ext under "sessiontree" in the header's chat_metadata.
// SillyTavern's saveChat writes the header anew as user_name,
// character_name, create_date and chat_metadata, so a member of the header's
// own is gone after its first save, while chat_metadata's members are written
// back. A header without chat_metadata gets one, and ext says so (noMetadata)
// for an import to take it away again.
func withExt(hm []convert.Member, ext []byte) []convert.Member {
	md, ok := convert.Get(hm, "chat_metadata")
	if !ok {
		ext = convert.AppendMember(ext, noMetadata, []byte("true"))
		md = []byte("{}")
	}
	mm, err := convert.Members(md)
	if err != nil {
		// Not an object: the header's own member, where older exports
		// kept it, is the only place left.
		return convert.Set(hm, convert.ExtKey, ext)
	}
	md = convert.NewObject(nil).Members(convert.Without(mm, convert.ExtKey)).Raw(convert.ExtKey, ext).Bytes()
	return convert.Set(hm, "chat_metadata", md)
}

// noMetadata marks the extension of a header that had no chat_metadata
// before the export added one to hold the extension.
const noMetadata = "header_without_chat_metadata"

// headerOf is the header a previous import kept on the first node of the
// path (or any node), else one made up as SillyTavern writes a new chat's.
func headerOf(t *core.Tree, path []string) []byte {
	for _, id := range path[:min(1, len(path))] {
		n, _ := t.Node(id)
		if h, ok := rawjson.Lookup(n.Message, ChatKey); ok && len(h) > 0 && h[0] == '{' {
			return h
		}
	}
	user, char := "User", "Assistant"
	var at int64
	for _, id := range path {
		n, _ := t.Node(id)
		if at == 0 {
			at = n.CreatedAtMs
		}
	}
	return convert.NewObject(nil).String("user_name", user).String("character_name", char).
		String("create_date", humanized(at)).Raw("chat_metadata", []byte("{}")).Bytes()
}

// group writes the line of the active node id among its siblings sibs, the
// n-th line of the file.
func group(t *core.Tree, sibs []string, id string, n int, header []byte, first bool) []byte {
	active := 0
	for j, s := range sibs {
		if s == id {
			active = j
		}
	}
	node, _ := t.Node(id)
	line, own := ownLine(node)
	if !own {
		line = native(t, node, header)
	}
	ms, _ := convert.Members(line)
	if !own || !sameGroup(t, ms, sibs, active) {
		texts := make([]string, len(sibs))
		for j, s := range sibs {
			sn, _ := t.Node(s)
			texts[j] = text(t, sn)
		}
		ms = convert.Set(ms, "mes", convert.Quote(texts[active]))
		if len(sibs) > 1 || has(ms, "swipes") {
			ms = convert.Set(ms, "swipes", rawjson.AppendStrings(nil, texts))
			ms = convert.Set(ms, "swipe_id", strconv.AppendInt(nil, int64(active), 10))
			ms = convert.Set(ms, "swipe_info", swipeInfo(t, sibs))
		}
	}
	line = convert.NewObject(nil).Members(ms).Bytes()
	// What the line does not give back, alternative by alternative.
	alts, _, _ := alternatives(ms, n)
	exts := make([][]byte, len(sibs))
	needed := false
	l, err := convert.NewLine(line)
	if err != nil {
		return line // the line was just written from its members
	}
	for j, s := range sibs {
		sn, _ := t.Node(s)
		want := alternative{}
		if j < len(alts) {
			want = alts[j]
		}
		if first && j == active {
			want.msg = convert.AppendMember(want.msg, ChatKey, header)
		}
		d := func([]byte) (core.Message, string, int64, error) { return want.msg, want.label, want.at, nil }
		if j >= len(alts) {
			d = func([]byte) (core.Message, string, int64, error) { return nil, "", 0, convert.Invalid("no such swipe") }
		}
		e := l.Ext(sn, d)
		if e == nil {
			e = []byte("{}")
		}
		if want.id != s {
			e = convert.AppendMember(e, "id", convert.Quote(s))
		}
		if len(e) > 2 {
			needed = true
		}
		exts[j] = e
	}
	if !needed {
		return line
	}
	return convert.AppendMember(line, convert.ExtKey, append(append([]byte(`{"nodes":`), convert.RawArray(exts)...), '}'))
}

// ownLine returns the line the node came from, when it is the line's active
// alternative.
func ownLine(n core.Node) ([]byte, bool) {
	rec, ok := rawjson.Lookup(n.Message, Key)
	if !ok || len(rec) == 0 || rec[0] != '{' {
		return nil, false
	}
	if _, ok := rawjson.Lookup(rec, "mes"); !ok {
		return nil, false
	}
	return rec, true
}

// sameGroup reports whether the line's swipes are still the siblings' texts
// with the active one at swipe_id (or, without swipes, there is one sibling).
func sameGroup(t *core.Tree, ms []convert.Member, sibs []string, active int) bool {
	sw, ok := convert.Get(ms, "swipes")
	if !ok {
		return len(sibs) == 1
	}
	swipes, err := convert.Elements(sw)
	if err != nil || len(swipes) != len(sibs) {
		return false
	}
	if string(mustGet(ms, "swipe_id")) != strconv.Itoa(active) {
		return false
	}
	for j, s := range sibs {
		if j == active {
			continue
		}
		sn, _ := t.Node(s)
		c, _ := rawjson.Lookup(sn.Message, "content")
		if !bytes.Equal(c, swipes[j]) {
			return false
		}
	}
	return true
}

func has(ms []convert.Member, key string) bool {
	_, ok := convert.Get(ms, key)
	return ok
}
