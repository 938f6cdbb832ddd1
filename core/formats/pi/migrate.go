package pi

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core/formats/internal/convert"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// migration brings the entries of an older session file to version 3 the way
// pi does when it opens one (session-manager.ts, migrateV1ToV2 and
// migrateV2ToV3, pi-mono 83378aa): version 1 entries have no id and no
// parentId, so each gets an id and the entry before it as its parent; a v1
// compaction's firstKeptEntryIndex becomes firstKeptEntryId; a v2 message whose
// role is hookMessage gets the role custom; the header says version 3. Keys
// pi adds go at the end of the entry, where JSON.stringify puts them.
//
// pi's ids are random; these are the entry's index in the file, as 8 hex
// digits, so an import is deterministic.
type migration struct {
	seen bool     // the first entry was read
	from int      // the version migrated from (0: none)
	prev string   // the id of the entry before (v1)
	ids  []string // the id of each entry by its index in the file (v1)
}

// entry returns obj migrated (obj itself when nothing changes).
func (m *migration) entry(obj []byte) []byte {
	typ, _ := rawjson.LookupString(obj, "type")
	if !m.seen {
		m.seen = true
		m.from = 0
		if typ == "session" {
			v := 1
			if raw, ok := rawjson.Lookup(obj, "version"); ok {
				if n, err := strconv.Atoi(string(raw)); err == nil {
					v = n
				}
			}
			if v < 3 {
				m.from = v
			}
		}
	}
	if m.from == 0 {
		return obj
	}
	ms, err := convert.Members(obj)
	if err != nil {
		return obj
	}
	index := len(m.ids)
	if typ == "session" {
		m.ids = append(m.ids, "")
		return convert.NewObject(nil).Members(convert.Set(ms, "version", []byte("3"))).Bytes()
	}
	if m.from < 2 {
		id := hex8(index)
		ms = convert.Set(ms, "id", convert.Quote(id))
		if m.prev == "" {
			ms = convert.Set(ms, "parentId", []byte("null"))
		} else {
			ms = convert.Set(ms, "parentId", convert.Quote(m.prev))
		}
		m.prev = id
		m.ids = append(m.ids, id)
		if typ == "compaction" {
			if raw, ok := convert.Get(ms, "firstKeptEntryIndex"); ok {
				if k, err := strconv.Atoi(string(raw)); err == nil {
					ms = convert.Without(ms, "firstKeptEntryIndex")
					if k >= 0 && k < len(m.ids) && m.ids[k] != "" {
						ms = append(ms, convert.Member{Key: "firstKeptEntryId", Value: convert.Quote(m.ids[k])})
					}
				}
			}
		}
	}
	if typ == "message" {
		if msg, ok := convert.Get(ms, "message"); ok {
			if role, _ := rawjson.LookupString(msg, "role"); role == "hookMessage" {
				if mm, err := convert.Members(msg); err == nil {
					ms = convert.Set(ms, "message", convert.NewObject(nil).Members(convert.Set(mm, "role", convert.Quote("custom"))).Bytes())
				}
			}
		}
	}
	return convert.NewObject(nil).Members(ms).Bytes()
}

func hex8(n int) string {
	const digits = "0123456789abcdef"
	b := []byte("00000000")
	for i := 7; i >= 0 && n > 0; i-- {
		b[i] = digits[n&15]
		n >>= 4
	}
	return string(b)
}
