// Package sillytavern imports and exports SillyTavern chats: JSONL, a header
// line ({"user_name","character_name","create_date","chat_metadata"}) and then
// one line per message ({"name","is_user","is_system","send_date","mes",
// "extra"}, and for a regenerated reply "swipes", "swipe_id" and
// "swipe_info").
//
// A message line is a group of alternatives: its swipes (or its mes alone),
// each a node, siblings under the active alternative of the line before;
// swipe_id names the active one, which carries the chain on. The active
// node's message is {"role":…,"content":mes,"sillytavern":line} with the
// line kept whole; another swipe's is {"role":…,"content":swipe,
// "sillytavern":{"swipe":index}}. The header is kept under
// "sillytavern_chat" on the first line's active node. Node ids are "m<line>"
// ("m<line>.<swipe>" for a line with swipes) unless an export wrote others.
//
// A chat is one chain with alternatives of its last step: a tree deeper than
// that is written as the active path, each step's siblings as its swipes, and
// the nodes below another swipe (with the branches) under "sessiontree" in
// the header's chat_metadata (older exports: in the header itself); a line's "sessiontree" member gives back what its own fields do
// not (ids, labels, times, another format's message).
package sillytavern

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Key is the message member that holds the line (or, for a swipe that is not
// the line's active one, its index).
const Key = "sillytavern"

// ChatKey holds the header line on the first line's active node.
const ChatKey = "sillytavern_chat"

// Import reads a SillyTavern chat.
func Import(data []byte, opts ...core.Option) (*core.Tree, convert.Report, error) {
	return ImportReader(bytes.NewReader(data), opts...)
}

// ImportReader reads a SillyTavern chat line by line from r.
func ImportReader(r io.Reader, opts ...core.Option) (*core.Tree, convert.Report, error) {
	b := convert.NewBuilder("sillytavern", opts)
	var header, treeExt []byte
	seenHeader := false
	prev := ""  // the active node of the line before
	first := "" // the first line's active node
	lines := 0  // lines read
	err := convert.EachLine(r, b.Report, func(line int, obj []byte) {
		lines++
		obj = bytes.Clone(obj)
		if !seenHeader {
			seenHeader = true
			if _, isMessage := rawjson.Lookup(obj, "mes"); !isMessage {
				header, treeExt = splitHeader(obj)
				return
			}
			b.Report.Note("no header line: the first line is a message")
		}
		alts, active, substituted, err := derive(obj, line)
		if err != nil {
			b.Report.Problemf(line, "", err.Error()+": skipped")
			return
		}
		if substituted != "" {
			b.Report.Problemf(line, "", substituted)
		}
		for j, a := range alts {
			msg := a.msg
			if first == "" && j == active && header != nil && !a.hasExtMessage {
				msg = convert.AppendMember(msg, ChatKey, header)
			}
			id := b.Add(line, a.id, prev, msg, a.label, a.at)
			if j == active {
				alts[active].id = id
			}
		}
		if first == "" {
			first = alts[active].id
		}
		prev = alts[active].id
	})
	if err != nil {
		return nil, *b.Report, err
	}
	if lines == 0 {
		return nil, *b.Report, convert.Invalid("sillytavern: no header line")
	}
	hidden(b, treeExt)
	if len(b.IDs()) == 0 && header != nil {
		b.Report.Note("a chat of no message: the header is not kept (no node to keep it on)")
	}
	t, rep := b.Finish(prev, nil, treeExt)
	return t, *rep, nil
}

// splitHeader takes the extension an export wrote out of a header line: from
// chat_metadata, where SillyTavern keeps it when it saves the chat, or from
// the header itself, where exports kept it before (and SillyTavern dropped
// it on its first save).
func splitHeader(obj []byte) (header, ext []byte) {
	ms, _ := convert.Members(obj)
	ext, _ = convert.Get(ms, convert.ExtKey)
	ms = convert.Without(ms, convert.ExtKey)
	if md, ok := convert.Get(ms, "chat_metadata"); ok {
		if x, ok := rawjson.Lookup(md, convert.ExtKey); ok && len(x) > 0 && x[0] == '{' {
			ext = x
			mm, _ := convert.Members(md)
			mm = convert.Without(mm, convert.ExtKey)
			if v, _ := rawjson.Lookup(x, noMetadata); string(v) == "true" && len(mm) == 0 {
				ms = convert.Without(ms, "chat_metadata")
			} else {
				ms = convert.Set(ms, "chat_metadata", convert.NewObject(nil).Members(mm).Bytes())
			}
		}
	}
	return convert.NewObject(nil).Members(ms).Bytes(), ext
}

// alternative is one node a line gives.
type alternative struct {
	id            string
	msg           core.Message
	label         string
	at            int64
	hasExtMessage bool
}

// derive reads a message line (the n-th line of the file) as its
// alternatives and the index of the active one, each overridden by the
// line's "sessiontree" member; substituted says what stood in for a swipe_id
// that names no swipe.
func derive(obj []byte, n int) (alts []alternative, active int, substituted string, err error) {
	ms, err := convert.Members(obj)
	if err != nil {
		return nil, 0, "", convert.Invalid("not an object")
	}
	base := convert.Without(ms, convert.ExtKey)
	alts, active, substituted = alternatives(base, n)
	ext, _ := convert.Get(ms, convert.ExtKey)
	nodes, _ := rawjson.Lookup(ext, "nodes")
	exts, _ := convert.Elements(nodes)
	shared := convert.NewBase(base) // one line: its swipes' entries refer to the same bytes
	for j := range alts {
		if j >= len(exts) {
			break
		}
		one := append(base[:len(base):len(base)], convert.Member{Key: convert.ExtKey, Value: exts[j]})
		if id, ok := rawjson.LookupString(exts[j], "id"); ok {
			alts[j].id = id
		}
		alts[j].hasExtMessage = convert.HasExtMessageOn(one, shared)
		alts[j].msg, alts[j].label, alts[j].at, _ = convert.WithNodeExtOn(one, alts[j].msg, alts[j].at, shared)
	}
	return alts, active, substituted, nil
}

// alternatives reads a line without its "sessiontree" member. The active
// alternative keeps the whole line (mes, extra, send_date and the rest), so
// when swipe_id names no swipe (SillyTavern saves a swipe being generated
// with swipe_id one past the swipes, and mes the text so far) the line's mes
// stands in: the swipe equal to it, or else an alternative of its own after
// the swipes. substituted says which, for the report.
func alternatives(base []convert.Member, n int) (alts []alternative, active int, substituted string) {
	// is_system marks a message SillyTavern hides from the prompt, whoever
	// wrote it: the role is the writer's. A narrator's message (/sys) is the
	// system's.
	role := "assistant"
	switch {
	case isTrue(base, "is_user"):
		role = "user"
	case narrator(base):
		role = "system"
	}
	at := sendDate(mustGet(base, "send_date"))
	line := convert.NewObject(nil).Members(base).Bytes()
	mes, _ := convert.Get(base, "mes")
	if len(mes) == 0 || mes[0] != '"' {
		mes = []byte(`""`)
	}
	own := func(id string) alternative {
		msg := convert.NewObject(nil).String("role", role).Raw("content", mes).Raw(Key, line).Bytes()
		return alternative{id: id, msg: msg, at: at}
	}
	sw, _ := convert.Get(base, "swipes")
	swipes, err := convert.Elements(sw)
	if err != nil || len(swipes) == 0 {
		return []alternative{own("m" + strconv.Itoa(n))}, 0, ""
	}
	if v, ok := convert.Get(base, "swipe_id"); ok {
		i, err := strconv.Atoi(string(v))
		if err != nil || i < 0 || i >= len(swipes) {
			active = -1
			for j, s := range swipes {
				if rawjson.Unquote(s) == rawjson.Unquote(mes) && len(s) > 0 && s[0] == '"' {
					active = j
					break
				}
			}
			what := "swipe_id " + string(v) + " is not the index of one of the " + strconv.Itoa(len(swipes)) + " swipes (a swipe being written)"
			if active >= 0 {
				substituted = what + ": the swipe equal to mes, " + strconv.Itoa(active) + ", is the active one"
			} else {
				active = len(swipes)
				swipes = append(swipes, mes)
				substituted = what + ": mes is kept as a swipe of its own, " + strconv.Itoa(active) + ", the active one"
			}
		} else {
			active = i
		}
	}
	infos, _ := convert.Elements(mustGet(base, "swipe_info"))
	alts = make([]alternative, len(swipes))
	for j, s := range swipes {
		id := "m" + strconv.Itoa(n) + "." + strconv.Itoa(j)
		if j == active {
			alts[j] = own(id)
			continue
		}
		if len(s) == 0 || s[0] != '"' {
			s = []byte(`""`)
		}
		swipeAt := at
		if j < len(infos) {
			if d, ok := rawjson.Lookup(infos[j], "send_date"); ok {
				swipeAt = sendDate(d)
			}
		}
		msg := convert.NewObject(nil).String("role", role).Raw("content", s).Raw(Key, convert.NewObject(nil).Int("swipe", int64(j)).Bytes()).Bytes()
		alts[j] = alternative{id: id, msg: msg, at: swipeAt}
	}
	return alts, active, substituted
}

// hidden inserts the nodes an export kept in the header's "sessiontree"
// member: those below a swipe that is not on the active path.
func hidden(b *convert.Builder, ext []byte) {
	list, _ := rawjson.Lookup(ext, "nodes")
	nodes, _ := convert.Elements(list)
	for _, raw := range nodes {
		ms, err := convert.Members(raw)
		if err != nil {
			continue
		}
		msg, err := core.ParseMessage(mustGet(ms, "message"))
		if err != nil {
			b.Report.Problemf(0, convert.Str(ms, "id"), "a node kept in the header has no message: skipped")
			continue
		}
		at, _ := strconv.ParseInt(string(mustGet(ms, "created_at_ms")), 10, 64)
		b.Add(0, convert.Str(ms, "id"), convert.Str(ms, "parent"), msg, convert.Str(ms, "label"), at)
	}
}

// narrator reports whether the line is a narrator's (extra.type).
func narrator(ms []convert.Member) bool {
	typ, _ := rawjson.LookupString(mustGet(ms, "extra"), "type")
	return typ == "narrator"
}

func isTrue(ms []convert.Member, key string) bool {
	v, _ := convert.Get(ms, key)
	return string(v) == "true"
}

func mustGet(ms []convert.Member, key string) []byte {
	v, _ := convert.Get(ms, key)
	return v
}

var months = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}

// sendDate reads a send_date as SillyTavern does (parseTimestamp in
// public/scripts/utils.js): Unix milliseconds (a number or digits), its
// humanized forms "2024-6-5 @14h 56m 50s 682ms" and "2024-7-12@01h31m37s",
// "June 19, 2023 2:20pm", or RFC 3339; 0 when it is none of them.
func sendDate(v []byte) int64 {
	if len(v) == 0 {
		return 0
	}
	s := string(v)
	if v[0] == '"' {
		s = rawjson.Unquote(v)
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil && n >= 0 && n < 1e16 {
		return int64(n)
	}
	if ms, ok := convert.ParseISO(s); ok {
		return ms
	}
	nums := func(str string) []int {
		var out []int
		cur, in := 0, false
		for _, r := range str {
			if r >= '0' && r <= '9' {
				if cur > 1e9 {
					return nil
				}
				cur, in = cur*10+int(r-'0'), true
				continue
			}
			if in {
				out = append(out, cur)
			}
			cur, in = 0, false
		}
		if in {
			out = append(out, cur)
		}
		return out
	}
	if strings.Contains(s, "@") && strings.Contains(s, "h") {
		p := nums(s)
		if len(p) >= 6 {
			ms := 0
			if len(p) >= 7 {
				ms = p[6]
			}
			return civil(p[0], p[1], p[2], p[3], p[4], p[5], ms)
		}
		return 0
	}
	// June 19, 2023 2:20pm
	low := strings.ToLower(s)
	for i, m := range months {
		if !strings.HasPrefix(low, m+" ") {
			continue
		}
		p := nums(s)
		if len(p) != 4 {
			return 0
		}
		h := p[2] % 12
		if strings.HasSuffix(low, "pm") {
			h += 12
		}
		return civil(p[1], i+1, p[0], h, p[3], 0, 0)
	}
	return 0
}

// civil is the Unix milliseconds of a UTC date and time, 0 when out of range.
func civil(y, mo, d, h, mi, s, ms int) int64 {
	if y < 1970 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || ms > 999 {
		return 0
	}
	iso := strconv.Itoa(y) + "-" + pad(mo) + "-" + pad(d) + "T" + pad(h) + ":" + pad(mi) + ":" + pad(s) + "." + strconv.Itoa(1000 + ms)[1:] + "Z"
	t, _ := convert.ParseISO(iso)
	return t
}

func pad(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
