// Small DOM helpers: elements built with textContent only (message text, names
// and labels never become markup), a modal form, toasts and the error banner.

/** The page's element with that id. */
export const $ = (id) => document.getElementById(id);

/**
 * el("button.primary", { onclick, title }, "text", child…): an element with
 * classes, properties (attributes for data-*, aria-*, role, for), and children
 * (strings become text nodes).
 */
/**
 * ms (a time in ms, or a date's text) as formatter says it, or "" when it is
 * no date (a stored time out of range, or not a number): Intl's format throws
 * there, where Date's toLocaleString said "Invalid Date", and a list row's
 * throw stopped the page from starting.
 */
export function formatTime(formatter, ms) {
  const at = new Date(ms);
  return Number.isNaN(at.getTime()) ? "" : formatter.format(at);
}

export function el(spec, props, ...children) {
  const [tag, ...classes] = spec.split(".");
  const e = document.createElement(tag || "div");
  if (classes.length) e.className = classes.join(" ");
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("data-") || k.startsWith("aria-") || k === "role" || k === "for") e.setAttribute(k, v === true ? "" : String(v));
      else e[k] = v;
    }
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

/** Message text as paragraphs and ``` code blocks, as text nodes only. */
/**
 * Makes parent's children exactly items, in order, moving only what changed:
 * an element kept in place is not touched (a send inserts one, a window
 * that slides drops one).
 */
export function syncChildren(parent, items) {
  const keep = new Set(items);
  for (const c of [...parent.children]) if (!keep.has(c)) c.remove();
  let at = parent.firstChild;
  for (const it of items) {
    if (at === it) at = at.nextSibling;
    else parent.insertBefore(it, at);
  }
}

export function renderText(text) {
  const frag = document.createDocumentFragment();
  const parts = text.split(/^```[^\n]*\n?/m);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      frag.append(el("pre", null, el("code", null, part.replace(/\n$/, ""))));
    } else if (part.trim() !== "") {
      for (const para of part.replace(/^\n+|\n+$/g, "").split(/\n{2,}/)) frag.append(el("p", null, para));
    }
  });
  if (!frag.childNodes.length) frag.append(el("p.empty", null, "(no text)"));
  return frag;
}

/** snippet with every case-insensitive occurrence of query wrapped in <mark>. */
export function highlighted(snippet, query) {
  const frag = document.createDocumentFragment();
  const lower = snippet.toLowerCase();
  const q = query.toLowerCase();
  let i = 0;
  while (q !== "") {
    const j = lower.indexOf(q, i);
    if (j < 0) break;
    frag.append(snippet.slice(i, j), el("mark", null, snippet.slice(j, j + q.length)));
    i = j + q.length;
  }
  frag.append(snippet.slice(i));
  return frag;
}

const dialog = () => document.getElementById("dialog");

/**
 * Opens the modal with a title, fields and buttons. fields: [{ name, label,
 * value, placeholder, type: "text"|"password"|"url"|"radio"|"note", options,
 * suggest(datalist, values): fills the field's suggestions when it gets the focus }].
 * Resolves to the values ({ name: value }) when submitted with `ok`, or null
 * when cancelled. check(values) may return an error sentence to keep it open.
 */
export function openForm({ title, fields, ok = "OK", danger = false, check }) {
  const d = dialog();
  d.replaceChildren();
  const form = el("form.form", { method: "dialog" });
  form.append(el("h2", null, title));
  const inputs = {};
  for (const f of fields) {
    if (f.type === "note") {
      form.append(el("p.note", null, f.text));
      continue;
    }
    if (f.type === "pre") {
      // A block of text shown as it is (a request preview), with its own label.
      form.append(el("p.field", null, f.label), el("pre.preview", { tabindex: "0", "aria-label": f.label }, f.text));
      continue;
    }
    if (f.type === "textarea") {
      const id = `field-${f.name}`;
      const area = el("textarea", { id, name: f.name, rows: f.rows ?? 3, placeholder: f.placeholder ?? "", value: f.value ?? "" });
      form.append(el("label.field", { for: id }, f.label), area);
      inputs[f.name] = () => area.value;
      continue;
    }
    if (f.type === "radio") {
      const box = el("fieldset.radios", null, el("legend", null, f.label));
      for (const o of f.options) {
        const input = el("input", { type: "radio", name: f.name, value: o.value, checked: o.value === f.value });
        box.append(el("label.radio", null, input, el("span", null, o.label, o.hint ? el("small", null, o.hint) : null)));
      }
      form.append(box);
      inputs[f.name] = () => form.querySelector(`input[name="${f.name}"]:checked`)?.value ?? f.value;
      continue;
    }
    const id = `field-${f.name}`;
    const input = el("input", { id, name: f.name, type: f.type ?? "text", value: f.value ?? "", placeholder: f.placeholder ?? "", autocomplete: "off", spellcheck: false });
    form.append(el("label.field", { for: id }, f.label), input);
    if (f.suggest) {
      // Suggestions filled in later (the models an endpoint lists), asked at
      // every focus with the form's values as they are now (not as saved).
      const list = el("datalist", { id: `${id}-list` });
      input.setAttribute("list", list.id);
      form.append(list);
      input.addEventListener("focus", () => f.suggest(list, values()));
    }
    inputs[f.name] = () => input.value;
  }
  const values = () => Object.fromEntries(Object.entries(inputs).map(([k, get]) => [k, get()]));
  const error = el("p.form-error", { role: "alert", hidden: true });
  const cancel = el("button.ghost", { type: "button" }, "Cancel");
  const submit = el(danger ? "button.danger" : "button.primary", { type: "submit", value: "ok" }, ok);
  form.append(error, el("div.form-buttons", null, cancel, submit));
  d.append(form);
  return new Promise((resolve) => {
    const finish = (v) => {
      d.close();
      resolve(v);
    };
    cancel.onclick = () => finish(null);
    d.oncancel = (e) => {
      e.preventDefault();
      finish(null);
    };
    form.onsubmit = (e) => {
      e.preventDefault();
      const v = values();
      const problem = check?.(v);
      if (problem) {
        error.textContent = problem;
        error.hidden = false;
        return;
      }
      finish(v);
    };
    d.showModal();
    const first = form.querySelector("input:not([type=radio]), textarea");
    // A question that deletes opens on Cancel: an Enter pressed once too often does not delete.
    (first ?? (danger ? cancel : submit)).focus();
    if (first?.tagName === "INPUT") first.select();
    else first?.setSelectionRange(first.value.length, first.value.length); // a message to change: the caret at its end
  });
}

/** A short notice at the bottom of the page. */
export function toast(text, kind = "info") {
  const box = document.getElementById("toasts");
  // Up for as long as it takes to read (an import's report of many chats went
  // after 2.8 s, kept nowhere): ~55 ms a character, 2.8 to 20 s; a long one has
  // a × to go sooner, and waits while the pointer or the focus is on it.
  const long = text.length > 120;
  const close = long ? el("button.ghost.toast-close", { type: "button", "aria-label": "Dismiss", onclick: () => t.remove() }, "\u00d7") : null;
  const t = el(`div.toast.${kind}${long ? ".long" : ""}`, { role: "status" }, ...[el("span", null, text), close].filter(Boolean));
  box.append(t);
  while (box.children.length > 3) box.firstElementChild.remove();
  let left = Math.min(20000, Math.max(2800, text.length * 55));
  const tick = () => {
    if (!t.isConnected) return;
    if (t.matches(":hover, :focus-within")) return setTimeout(tick, 500);
    if ((left -= 500) > 0) return setTimeout(tick, 500);
    t.classList.add("out");
    setTimeout(() => t.remove(), 500);
  };
  setTimeout(tick, 500);
}

/**
 * The error banner above the chat: stays until dismissed or replaced. action
 * ({ label, run }): a button that clears the banner and runs it (a Retry).
 */
export function showError(text, action) {
  const b = document.getElementById("banner");
  const act = action ? el("button.primary.banner-action", { type: "button", "data-action": "banner-action", onclick: () => { clearError(); action.run(); } }, action.label) : null;
  const close = el("button.ghost.banner-close", { type: "button", "aria-label": "Dismiss", onclick: () => clearError() }, "\u00d7");
  // replaceChildren would write a null (no action) as the text "null".
  b.replaceChildren(...[el("span.banner-text", null, text), act, close].filter(Boolean));
  b.hidden = false;
}

export function clearError() {
  const b = document.getElementById("banner");
  // Its Retry or × had the focus: it goes to the composer, not to the page's body.
  if (b.contains(document.activeElement)) document.getElementById("input").focus({ preventScroll: true });
  b.hidden = true;
  b.replaceChildren();
}

/** text as a sentence: a full stop added unless it ends in one already (an error's own words may). */
export function sentence(text) {
  return /[.!?…]$/.test(text) ? text : `${text}.`;
}

/**
 * Keeps a small setting in localStorage; a full storage refuses it, and that
 * must not stop what the user asked for (until Dec 6, night, the refusal was
 * thrown halfway through opening a chat: the page stuck on the old one, and a
 * "+ New chat" dropped the old one's unsaved messages).
 */
export function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // full: the next visit opens the newest chat instead
  }
}

/** The text of a SessionTreeError or any other error, for a message. */
export function describe(e) {
  if (e && typeof e === "object" && typeof e.code === "string") return `${e.message} (${e.code})`;
  return e?.message ?? String(e);
}
