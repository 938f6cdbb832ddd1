package convert

// Folded appends to dst the message of a record whose member is a chat
// message: the member's own members, then key: the record with that member
// replaced by Placeholder. It is byte for byte what Unfold undoes, built
// without splitting the record into members, for records (JSONL lines) with no
// escaped key and no "sessiontree" member. member must be a slice of obj and
// a JSON object.
func Folded(dst, obj, member []byte, key string) []byte {
	start := Offset(obj, member)
	dst = append(dst, member[:len(member)-1]...)
	if len(member) > 2 {
		dst = append(dst, ',')
	}
	dst = append(append(append(dst, '"'), key...), '"', ':')
	dst = append(dst, obj[:start]...)
	dst = append(dst, Placeholder...)
	dst = append(dst, obj[start+len(member):]...)
	return append(dst, '}')
}

// FoldedAt returns v, a slice of obj, as the same bytes inside msg, which
// Folded(…, obj, member, key) built; nil for nil.
func FoldedAt(msg, obj, member []byte, key string, v []byte) []byte {
	if v == nil {
		return nil
	}
	start, p := Offset(obj, member), Offset(obj, v)
	if p >= start && p < start+len(member) {
		return msg[p-start:][:len(v)]
	}
	rec := len(member) - 1 + len(key) + 3
	if len(member) > 2 {
		rec++
	}
	if p < start {
		return msg[rec+p:][:len(v)]
	}
	return msg[rec+start+len(Placeholder)+p-(start+len(member)):][:len(v)]
}
