package convert

import (
	"encoding/base64"
	"strings"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// File is a file a message part carries, as a URL (a data: URL when the part
// holds the bytes).
type File struct {
	MediaType string
	URL       string
	Filename  string // "" when the part names none
}

// FilePart reads a part that carries a file core/chat keeps as an Other part:
// an AI SDK UIMessage's {"type":"file","mediaType","url"}, assistant-ui's
// {"type":"file","data","mimeType"} (data a URL or base64), Chat
// Completions' {"type":"file","file":{"file_data","filename"}}, the
// Responses API's {"type":"input_file","file_data"|"file_url","filename"} and
// Anthropic's {"type":"document","source"}. A file named only by a provider's
// id has no URL: false.
func FilePart(p []byte) (File, bool) {
	var f File
	switch typ, _ := rawjson.LookupString(p, "type"); typ {
	case "file":
		if u, ok := rawjson.LookupString(p, "url"); ok {
			f.MediaType, _ = rawjson.LookupString(p, "mediaType")
			f.URL = u
		} else if d, ok := rawjson.LookupString(p, "data"); ok {
			if s, _ := rawjson.LookupString(p, "sourceType"); s == "id" {
				return f, false
			}
			f.MediaType, _ = rawjson.LookupString(p, "mimeType")
			f.URL = d
		} else if inner, ok := rawjson.Lookup(p, "file"); ok {
			f.URL, _ = rawjson.LookupString(inner, "file_data")
			f.Filename, _ = rawjson.LookupString(inner, "filename")
		}
	case "input_file":
		f.URL, _ = rawjson.LookupString(p, "file_data")
		if f.URL == "" {
			f.URL, _ = rawjson.LookupString(p, "file_url")
		}
	case "document":
		src, _ := rawjson.Lookup(p, "source")
		switch kind, _ := rawjson.LookupString(src, "type"); kind {
		case "base64":
			f.MediaType, _ = rawjson.LookupString(src, "media_type")
			f.URL, _ = rawjson.LookupString(src, "data")
		case "text":
			f.MediaType, _ = rawjson.LookupString(src, "media_type")
			text, _ := rawjson.LookupString(src, "data")
			f.URL = base64.StdEncoding.EncodeToString([]byte(text))
		case "url":
			f.MediaType = "application/pdf" // Anthropic's URL documents are PDFs
			f.URL, _ = rawjson.LookupString(src, "url")
		}
	}
	if f.URL == "" {
		return f, false
	}
	if f.Filename == "" {
		f.Filename, _ = rawjson.LookupString(p, "filename")
	}
	if f.MediaType == "" {
		f.MediaType = "application/octet-stream"
		if strings.HasPrefix(strings.ToLower(f.URL[:min(len(f.URL), 5)]), "data:") {
			if end := strings.IndexAny(f.URL, ";,"); end > 5 {
				f.MediaType = f.URL[5:end]
			}
		}
	}
	if scheme := strings.ToLower(f.URL[:min(len(f.URL), 8)]); !strings.HasPrefix(scheme, "data:") && !strings.HasPrefix(scheme, "http:") && !strings.HasPrefix(scheme, "https:") {
		f.URL = "data:" + f.MediaType + ";base64," + f.URL // the bytes, in base64
	}
	return f, true
}
