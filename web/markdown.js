// Message text as Markdown, safely: markdown-it (CommonMark, raw HTML off: a
// tag in a message is text), then DOMPurify over its output, code highlighted
// by highlight.js only for a fence that names its language. Every code block
// gets its language label and a copy button. The vendored modules are pinned in
// .tools/package.json and copied to web/dist/vendor by make web-dist.
import MarkdownIt from "./vendor/markdown-it.mjs";
import DOMPurify from "./vendor/purify.mjs";
import hljs from "./vendor/highlight.mjs";
import { el } from "./dom.js";
import { hasANSI, renderANSI, stripANSI } from "./ansi.js";
import { splitDetails } from "./reasoning.js";

const md = new MarkdownIt({
  html: false, // raw HTML in a message is shown as text
  linkify: true,
  typographer: false,
  highlight(code, lang) {
    if (lang && hljs.getLanguage(lang)) {
      try {
        return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
      } catch {
        // plain text below
      }
    }
    return ""; // markdown-it escapes it
  },
});
// Links open elsewhere and only with safe schemes (markdown-it's validateLink drops javascript:, vbscript:, file:, data: but images).
md.validateLink = (url) => /^(https?:|mailto:|#|\/|\.)/i.test(url.trim()) || !/^[a-z][a-z0-9+.-]*:/i.test(url.trim());

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ["img", "style", "form", "input", "button", "textarea", "select", "iframe", "svg", "math"],
  FORBID_ATTR: ["style", "id", "name"],
};

/** Copies text to the clipboard and says so on the button. */
export async function copyText(button, text) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Copy failed";
  }
  setTimeout(() => { button.textContent = "Copy"; }, 1500);
}

/**
 * The words of Markdown text without its syntax, on one line (for a one-line
 * preview: "# Plan\n\nHere is **bold**" → "Plan Here is bold"). Reads
 * markdown-it's tokens; nothing is rendered.
 */
export function plainText(text) {
  const out = [];
  const shown = splitDetails(stripANSI(text)).map((p) => p.text ?? "").join("\n\n"); // without reasoning blocks
  for (const tok of md.parse(shown, {})) {
    if (tok.type === "inline") {
      for (const c of tok.children ?? []) {
        if (c.type === "text" || c.type === "code_inline") out.push(c.content);
        else if (c.type === "softbreak" || c.type === "hardbreak") out.push(" ");
      }
      out.push(" ");
    } else if (tok.type === "fence" || tok.type === "code_block") {
      out.push(tok.content, " ");
    }
  }
  return out.join("").replace(/\s+/g, " ").trim();
}

/**
 * The message text for display, a DocumentFragment: terminal output (text with
 * ANSI escapes) as a block in its colours; else Markdown, sanitized, with each
 * Open WebUI <details type="reasoning"> block as a closed, collapsible block
 * whose body is Markdown too. Only what is shown changes, never the message.
 */
export function renderMarkdown(text) {
  return text.length > FOLD_AT ? folded(text) : renderWhole(text);
}

/** renderMarkdown without the fold. */
function renderWhole(text) {
  if (text.trim() === "") {
    const frag = document.createDocumentFragment();
    frag.append(el("p.empty", null, "(no text)"));
    return frag;
  }
  if (hasANSI(text)) {
    const frag = document.createDocumentFragment();
    frag.append(renderANSI(text));
    return frag;
  }
  const parts = splitDetails(text);
  if (parts.length === 1 && parts[0].text !== undefined) return markdown(text);
  const frag = document.createDocumentFragment();
  for (const p of parts) {
    if (p.text !== undefined) {
      if (p.text.trim() !== "") frag.append(markdown(p.text));
      continue;
    }
    const kind = p.type === "reasoning" ? "reasoning" : "tool-block";
    frag.append(el(`details.${kind}${p.done ? "" : ".writing"}`, { "data-type": p.type },
      el("summary", null, p.summary),
      el("div.details-body", null, p.body.trim() === "" ? null : markdown(p.body))));
  }
  return frag;
}

const isText = (p) => p && typeof p === "object" && typeof p.text === "string";

/** A tool call's input or a tool result's text, as a closed block named by summary. */
function toolBlock(summary, body) {
  return el("details.tool-block", { "data-type": "tool" }, el("summary", null, summary),
    el("div.details-body", null, el("pre", null, el("code", null, body))));
}

/** JSON text (a tool call's arguments) indented, or as it is when it does not parse. */
function indented(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** A tool result's content as text: a string, or its text parts (other parts named). */
function resultText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isText(p) ? p.text : `[${p?.type ?? "part"}]`)).join("\n");
}

/**
 * A message for display: its text as renderMarkdown shows it, and each tool
 * call (Anthropic's tool_use parts, OpenAI's tool_calls) and tool result as a
 * closed block naming the tool, with its input or the result's text inside.
 * Other parts (an image) are named in brackets.
 */
export function renderMessage(m) {
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  if (!Array.isArray(m.content) && !calls.length) return renderMarkdown(typeof m.content === "string" ? m.content : "");
  const frag = document.createDocumentFragment();
  let text = "";
  const flush = () => {
    if (text.trim() !== "") frag.append(renderMarkdown(text));
    text = "";
  };
  for (const p of Array.isArray(m.content) ? m.content : [m.content ?? ""]) {
    if (typeof p === "string") text += p;
    else if (isText(p)) text += (text ? "\n\n" : "") + p.text;
    else if (p?.type === "tool_use") {
      flush();
      frag.append(toolBlock(`Tool call: ${p.name ?? "?"}`, JSON.stringify(p.input ?? {}, null, 2)));
    } else if (p?.type === "tool_result") {
      flush();
      frag.append(toolBlock(p.is_error ? "Tool result (error)" : "Tool result", resultText(p.content)));
    } else if (p?.type) text += `${text ? "\n\n" : ""}[${p.type}]`;
  }
  flush();
  for (const c of calls) frag.append(toolBlock(`Tool call: ${c?.function?.name ?? "?"}`, indented(c?.function?.arguments ?? "")));
  return frag.childNodes.length ? frag : renderMarkdown("");
}

// A message longer than this shows its first part and a button for the rest:
// a 1 MB reply (a pasted log, a model writing out base64) held the page 3.6 s
// to draw, one unbroken word of it 8.5 s (the chat's wrapping rules lay it
// out ~15 times slower than a bare block), on arrival and at every open.
const FOLD_AT = 64 * 1024;

/** text's first FOLD_AT characters (to a line's end when one is near), then what is left out and a button that shows it all. */
function folded(text) {
  let cut = text.lastIndexOf("\n", FOLD_AT);
  if (cut < FOLD_AT / 2) cut = FOLD_AT;
  const box = el("div.folded");
  const kb = (n) => `${Math.round(n / 1024).toLocaleString()} KB`;
  const all = el("button.ghost.show-all", { type: "button" }, `Show all ${kb(text.length)}`);
  all.onclick = () => box.replaceChildren(renderWhole(text));
  box.append(renderWhole(text.slice(0, cut)),
    el("p.fold-note", null, `\u2026 ${kb(text.length - cut)} more not shown, to keep the page quick. `, all));
  const frag = document.createDocumentFragment();
  frag.append(box);
  return frag;
}

let warmed = false;

/**
 * Renders a small sample once and drops it: the first render of a page's life
 * costs 100-180 ms more than the next (the renderer's and the sanitizer's code
 * and state made ready), so an import calls this while a worker checks its
 * file, and its first messages are painted in a short task.
 */
export function warmMarkdown() {
  if (warmed) return;
  warmed = true;
  renderMarkdown("A *warm-up* with `code`, a [link](#top) and a list:\n\n- one\n- two\n\n```js\nconst x = 1;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
}

/** Markdown text rendered: a sanitized DocumentFragment with code blocks and tables wrapped. */
function markdown(text) {
  const frag = DOMPurify.sanitize(md.render(text), PURIFY);
  // The newlines between blocks are not text of the message.
  for (const n of [...frag.childNodes]) if (n.nodeType === Node.TEXT_NODE && n.textContent.trim() === "") n.remove();
  // A heading with no words ("# ", as a reply streams one) is no heading to a screen reader's list.
  for (const h of frag.querySelectorAll("h1, h2, h3, h4, h5, h6")) if (h.textContent.trim() === "") h.remove();
  for (const pre of frag.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    const lang = (code?.className.match(/language-([\w+#.-]+)/) ?? [])[1] ?? "";
    if (code && lang && hljs.getLanguage(lang)) code.classList.add("hljs");
    const copy = el("button.code-copy", { type: "button", "aria-label": `Copy the ${lang || "code"} block` }, "Copy");
    copy.onclick = () => copyText(copy, code?.textContent ?? pre.textContent);
    const wrap = el("div.code-block", null, el("div.code-head", null, el("span.code-lang", null, lang || "text"), copy));
    // A wide block scrolls sideways: reached by Tab, then the arrow keys (only
    // Chromium made a scroller focusable by itself; GitHub's blocks do the same).
    pre.tabIndex = 0;
    pre.replaceWith(wrap);
    wrap.append(pre);
  }
  for (const t of frag.querySelectorAll("table")) {
    const wrap = el("div.table-wrap");
    t.replaceWith(wrap);
    wrap.append(t);
  }
  return frag;
}
