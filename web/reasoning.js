// Open WebUI keeps a model's reasoning (and its tool calls, code runs) inside
// the message text as HTML: <details type="reasoning" done="true"
// duration="2"><summary>Thought for 2 seconds</summary>\n&gt; quoted lines
// </details>, the body HTML-escaped. For display only, such a block becomes a
// collapsible block of its own, closed; the stored message keeps its bytes.

// A <details …type="…"…> block: its attributes, its summary, its body.
const BLOCK = /<details\b([^>]*\btype="[^"]*"[^>]*)>[ \t]*\n?(?:[ \t]*<summary>([\s\S]*?)<\/summary>)?([\s\S]*?)<\/details>/g;

const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", "#39": "'" };
const unescape = (s) => s.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, e) => ENTITIES[e]);

function attribute(attrs, name) {
  const m = attrs.match(new RegExp(`\\b${name}="([^"]*)"`));
  return m ? unescape(m[1]) : null;
}

/** The body of a block without the "> " quoting Open WebUI puts before each of its lines. */
function unquote(body) {
  const lines = body.replace(/^\n+|\s+$/g, "").split("\n");
  if (!lines.every((l) => l.trim() === "" || /^\s*>/.test(l))) return lines.join("\n");
  return lines.map((l) => l.replace(/^\s*> ?/, "")).join("\n");
}

/** Whether index of text is inside a fenced code block (an odd number of fence lines before it). */
function inFence(text, index) {
  return (text.slice(0, index).match(/^ {0,3}(```|~~~)/gm) ?? []).length % 2 === 1;
}

const OPEN = /<details\b([^>]*\btype="[^"]*"[^>]*)>[ \t]*\n?(?:[ \t]*<summary>([\s\S]*?)<\/summary>)?([\s\S]*)$/;

function block(attrs, summary, body, closed) {
  const type = attribute(attrs, "type");
  const done = closed && attribute(attrs, "done") !== "false";
  const duration = attribute(attrs, "duration");
  const made = type === "reasoning"
    ? (done ? `Thought${duration ? ` for ${duration} s` : ""}` : "Thinking\u2026")
    : type.replace(/_/g, " ");
  const said = summary !== undefined ? unescape(summary).trim() : "";
  return { type, summary: said || made, body: unquote(unescape(body)), done };
}

/**
 * The parts of a message's text, in order: { text } for ordinary text and
 * { type, summary, body, done } for each Open WebUI <details type="…"> block
 * (summary: its <summary>, or a sentence made from its type and duration;
 * done: false while a model is still writing it).
 */
export function splitDetails(text) {
  if (!text.includes("<details")) return [{ text }];
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(BLOCK)) {
    if (inFence(text, m.index)) continue; // markup quoted in a code block stays code
    if (m.index > at) parts.push({ text: text.slice(at, m.index) });
    at = m.index + m[0].length;
    parts.push(block(m[1], m[2], m[3], true));
  }
  // A block still being written (no </details> yet): the rest of the text.
  const open = OPEN.exec(text.slice(at));
  if (open && !inFence(text, at + open.index)) {
    if (open.index > 0) parts.push({ text: text.slice(at, at + open.index) });
    parts.push(block(open[1], open[2], open[3], false));
  } else if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
