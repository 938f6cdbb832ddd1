// Terminal output in a message (a Claude Code command's stdout, a tool's log)
// carries ANSI escape sequences. For display only: SGR colours and weights
// become spans with classes (app.css), every other sequence is dropped; the
// stored message keeps its bytes.
import { el } from "./dom.js";

// CSI sequences (ESC [ … final byte), OSC sequences (ESC ] … BEL or ESC \) and
// the two-byte ESC sequences; a lone ESC too.
const SEQUENCE = /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?/g;

/** Whether text holds an ANSI escape sequence. */
export function hasANSI(text) {
  return text.includes("\x1b");
}

/** text without its escape sequences. */
export function stripANSI(text) {
  return text.replace(SEQUENCE, "");
}

/** The style of a run of text: what SGR parameters set so far. */
function apply(style, params) {
  const p = params === "" ? [0] : params.split(/[;:]/).map((n) => Number(n) || 0);
  for (let i = 0; i < p.length; i++) {
    const n = p[i];
    if (n === 0) Object.assign(style, { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false });
    else if (n === 1) style.bold = true;
    else if (n === 2) style.dim = true;
    else if (n === 3) style.italic = true;
    else if (n === 4) style.underline = true;
    else if (n === 22) style.bold = style.dim = false;
    else if (n === 23) style.italic = false;
    else if (n === 24) style.underline = false;
    else if (n >= 30 && n <= 37) style.fg = n - 30;
    else if (n >= 90 && n <= 97) style.fg = n - 90 + 8;
    else if (n === 39) style.fg = null;
    else if (n >= 40 && n <= 47) style.bg = n - 40;
    else if (n >= 100 && n <= 107) style.bg = n - 100 + 8;
    else if (n === 49) style.bg = null;
    else if (n === 38 || n === 48) {
      // 256 colours (5;n) and true colour (2;r;g;b): the first 16 of the
      // palette are kept, the rest shown in the default colour.
      const mode = p[i + 1];
      const idx = mode === 5 ? p[i + 2] : -1;
      i += mode === 5 ? 2 : mode === 2 ? 4 : 0;
      const c = idx >= 0 && idx < 16 ? idx : null;
      if (n === 38) style.fg = c;
      else style.bg = c;
    }
  }
}

/** Terminal output as a block: its text in spans styled as the SGR sequences say. */
export function renderANSI(text) {
  const code = el("code");
  const style = { fg: null, bg: null, bold: false, dim: false, italic: false, underline: false };
  let at = 0;
  const run = (s) => {
    if (s === "") return;
    const cls = [
      style.fg !== null && `ansi-fg-${style.fg}`, style.bg !== null && `ansi-bg-${style.bg}`,
      style.bold && "ansi-bold", style.dim && "ansi-dim", style.italic && "ansi-italic", style.underline && "ansi-underline",
    ].filter(Boolean);
    code.append(cls.length ? el(`span.${cls.join(".")}`, null, s) : s);
  };
  for (const m of text.matchAll(SEQUENCE)) {
    run(text.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[2] === "m") apply(style, m[1]);
  }
  run(text.slice(at));
  return el("pre.terminal", { tabIndex: 0 }, code); // scrolls sideways: reached by Tab (markdown.js)
}
