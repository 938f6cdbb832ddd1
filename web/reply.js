// A send and its reply: the request for the configured endpoint (t.projectFor,
// with the budget) or the demo assistant's turn, the reply streamed into the
// chat view once a frame, Retry, and where the reply is stored.
import { $, toast, showError, clearError, describe, sentence, remember } from "./dom.js";
import { usesEndpoint, messageText, demoReply, endpointReply, requestBody } from "./assistant.js";
import { renderMarkdown, plainText } from "./markdown.js";
import { state, loadInterchange, renderAll } from "./app.js";
import { waitingForReply, keepDeleted } from "./conversations.js";
import { roleName, renderChat, renderComposer } from "./chat.js";
import { change, focusPlace } from "./actions.js";

const CONTEXT = 50; // messages before a turn handed to the demo assistant (the endpoint gets projectFor)

// A reply streaming when the tab was closed: kept in localStorage at pagehide
// (keepPartial), added to its conversation at its next open (restorePartial).
// A reload kept it (the stream's end commits it while the page goes), but a
// closed tab is torn down before that write: the painted words were lost,
// and the chat ended on an unanswered turn.
const PARTIAL_KEY = "sessiontree-demo.partial.";

/** At pagehide: the reply streaming now, as far as it came, kept for the conversation's next open. */
export function keepPartial() {
  const s = state.busy?.streaming;
  if (!s || !state.stream) return;
  remember(PARTIAL_KEY + s.conv, JSON.stringify({ upTo: s.upTo, content: state.stream, model: s.model, at: Date.now() }));
}

/**
 * The reply cur's tab was closed during (keepPartial), added after its
 * user's turn, marked incomplete ("interrupted"), unless the tree has it
 * already (a reload's stream committed it, or it went on and ended); the
 * user stays on their branch.
 */
export function restorePartial(cur) {
  const key = PARTIAL_KEY + cur.meta.id;
  let p;
  try {
    p = JSON.parse(localStorage.getItem(key) ?? "null");
  } catch {
    p = null;
  }
  if (p === null) return;
  localStorage.removeItem(key);
  const t = cur.tree;
  if (typeof p?.upTo !== "string" || typeof p.content !== "string" || !t?.node(p.upTo)) return;
  const kept = t.children(p.upTo).some((id) => {
    const m = t.node(id)?.message;
    return m?.role === "assistant" && typeof m.content === "string" && m.content.startsWith(p.content);
  });
  if (kept) return;
  const message = { role: "assistant", content: p.content, incomplete: true, stop_reason: "interrupted" };
  if (typeof p.model === "string" && p.model) message.model = p.model;
  change("reply", (t) => {
    const here = t.activeBranch;
    appendAfter(t, p.upTo, message);
    if (t.activeBranch !== here) t.switchBranch(here);
  });
  toast("The reply that was coming when this chat's tab was closed is kept as far as it came, marked incomplete. Regenerate to try again.", "warn");
}

/**
 * The request body for the configured endpoint: the path up to node upTo (the
 * user's turn), projected for the endpoint's API by the library (t.projectFor:
 * roles, tool pairs, the budget with the other branches' summaries in place of
 * what is left out), with the conversation's system prompt.
 */
export async function requestFor(upTo) {
  await loadInterchange("provider");
  const s = state.settings;
  // upTo: the path ends there (regenerate, a reply to an earlier turn).
  const { request, report } = state.cur.tree.projectFor(s.api, { budget: s.budget, upTo });
  return { body: requestBody(s, request, state.cur.meta.system ?? ""), report };
}

/**
 * Paints the reply streaming in, once per frame while a paint is cheap. A
 * paint renders the whole reply's Markdown again (its highlighting too), so
 * its cost grows with the reply: the next one waits three times as long as
 * the last took, and the page keeps three quarters of its time for the user
 * (a 3,000-line code block streamed in 7 s: 48 long tasks, 5.3 s of them,
 * until Dec 6, night).
 */
function paintStream(text) {
  state.stream = text;
  if (state.streamFrame) return;
  const wait = Math.max(0, (state.streamNext ?? 0) - performance.now());
  const paint = () => {
    state.streamFrame = requestAnimationFrame(() => {
      state.streamFrame = 0;
      const body = $("messages").querySelector(".typing .msg-body");
      if (!body) return;
      const t0 = performance.now();
      body.replaceChildren(renderMarkdown(state.stream));
      body.closest(".typing").classList.add("streaming");
      if (state.win.follow) $("messages").scrollTop = $("messages").scrollHeight;
      const took = performance.now() - t0;
      state.streamNext = performance.now() + 3 * took;
    });
  };
  if (wait < 8) paint();
  else state.streamFrame = setTimeout(paint, wait);
}

/** Says a new reply to screen readers (the list itself is redrawn, so it is not the live region). */
function announce(text) {
  $("announce").textContent = text.length > 300 ? `${text.slice(0, 297)}\u2026` : text;
}

/**
 * Asks for a reply to the path up to upTo (the demo assistant reads prior) and
 * stores it with commit(tree, message). When none comes, the error banner
 * offers again() as its Retry.
 */
export async function reply({ prior, upTo, again, controller }, commit) {
  state.replyFocus = focusPlace();
  state.replyUpTo = upTo; // the typing row shows only while this is on the path shown (renderChat)
  if (!controller) {
    controller = waitForReply();
    renderComposer();
    renderChat();
  }
  let broken = null; // the error the server reported in the stream, after some text
  try {
    let message;
    if (usesEndpoint(state.settings)) {
      controller.streaming = { conv: state.cur.meta.id, upTo, model: state.settings.model.trim() }; // keepPartial's
      // The user's turn is painted in its own task; the request is built and
      // sent in the next one (two tasks of ~30 ms at 200k messages, not one of 60).
      await nextTask();
      const { body } = await requestFor(upTo);
      state.timings.lastRequest = body;
      // fetch itself holds the page's thread ~0.1 ms a KB of body (a 32k-token
      // request: 10–40 ms): in a task of its own too.
      await nextTask();
      message = await endpointReply(state.settings, body, controller.signal, {
        onText: paintStream,
        onRetry: (n, e, ms) => toast(`Retrying${ms >= 1000 ? ` in ${Math.round(ms / 1000)} s` : ""} (${n}/2): ${describe(e)}`, "warn"),
        onBroken: (text) => { broken = text; },
      });
    } else {
      await new Promise((r) => setTimeout(r, 120)); // a beat, so the reply reads as one
      message = demoReply(prior, prior.variant ?? 0);
    }
    state.busy = null;
    clearError();
    const acted = focusPlace() ?? state.replyFocus;
    // The user may have gone to another branch while the reply came: it lands
    // on its own branch, and the view stays where the user is.
    const away = upTo !== undefined && state.cur.tree.pathIndex(upTo) < 0;
    const landed = change("reply", (t) => {
      const here = t.activeBranch;
      commit(t, message);
      const on = t.activeBranch;
      if (away && on !== here) t.switchBranch(here);
      return on;
    });
    if (away && landed) toast(`The reply came on the branch \u201c${landed}\u201d; you stay where you are.`);
    if (acted && (!document.activeElement || document.activeElement === document.body)) {
      const last = $("messages").querySelector("article.msg:last-of-type");
      (last?.querySelector(`[data-action="${acted.action}"]`) ?? last)?.focus({ preventScroll: true });
    }
    announce(`${roleName(message)}: ${plainText(messageText(message).slice(0, 4000))}`); // the words, not the Markdown's marks (a screen reader reads no more)
    if (message.incomplete) {
      const why = {
        stopped: "you stopped it", timeout: "the endpoint went quiet (timeout)", error: "the stream broke", cut: "the stream ended early", interrupted: "the page was left",
        length: "the model reached its token limit", max_tokens: "the model reached its token limit", content_filter: "the provider's content filter stopped it",
      }[message.stop_reason] ?? message.stop_reason;
      // The server's own words stay on screen (a banner): they say what to do.
      if (broken) showError(`${sentence(`The reply was cut short: ${broken}`)} What came is kept, marked incomplete; regenerate to try again.`);
      else toast(`The reply is kept as it was when ${why}; it is marked incomplete. Regenerate to try again.`, "warn");
    }
  } catch (e) {
    state.busy = null;
    if (controller.signal.aborted) {
      // Stopped before the first word: the user's own doing, not a failure.
      toast("Stopped before a reply came; your message is kept. Use \u201cGet a reply\u201d to ask again.");
    } else {
      showError(`${sentence(`No reply: ${describe(e)}`)} Your message is kept.`, again && { label: "Retry", run: retryIn(state.cur, again) });
    }
    renderAll();
  }
  if (state.cur?.deleted && state.cur.tree) await keepDeleted(state.cur);
}

/**
 * A Retry for cur's failed reply: runs again() while cur is still the open
 * conversation and no reply is on its way; else says why it cannot.
 */
function retryIn(cur, again) {
  return () => {
    if (waitingForReply()) return;
    if (state.cur !== cur || !cur.tree) {
      toast(`Open \u201c${cur.meta.title}\u201d again and use \u201cGet a reply\u201d there.`, "warn");
      return;
    }
    again().catch((e) => showError(`Retry failed: ${describe(e)}`));
  };
}

/** A reply is on its way from now: its AbortController (state.busy), the stream emptied. */
function waitForReply() {
  const controller = new AbortController();
  state.busy = controller;
  state.stream = "";
  state.streamNext = 0; // the last reply's paint cost is not this one's
  state.replyUpTo = undefined; // a send's: set by reply() once its message is there
  return controller;
}

/** Resolves in a later task of the page's thread (scheduler.yield where there is one: it goes first). */
function nextTask() {
  return globalThis.scheduler?.yield ? globalThis.scheduler.yield() : new Promise((r) => setTimeout(r, 0));
}

export async function send(text) {
  const t = state.cur?.tree;
  if (!t || state.busy) return;
  state.win.follow = true;
  // Waiting for the reply before the change: its one redraw shows the user's
  // turn and the typing row together (not a second redraw of the chat).
  const controller = waitForReply();
  const id = change("send", (t) => t.append({ role: "user", content: text }));
  if (id === undefined) {
    state.busy = null;
    renderAll();
    return;
  }
  await reply({ prior: priorTo(t, id, true), upTo: id, again: () => replyTo(id), controller }, (t, m) => appendAfter(t, id, m));
}

/**
 * The messages of the active path up to node id (included or not), at most
 * CONTEXT of them, with the number of user turns before (for the demo assistant).
 */
export function priorTo(t, id, inclusive) {
  const len = t.pathLength();
  let end = len;
  if (t.pathWindow(-1).ids[0] !== id) end = t.pathIndex(id) + 1;
  if (!inclusive) end--;
  const start = Math.max(0, end - CONTEXT);
  const prior = [...(end === len ? t.pathWindow(start - len) : t.pathWindow(start, end)).messages];
  prior.turnsBefore = start === 0 ? 0 : Math.ceil(start / 2); // user, assistant, user, …: an estimate past the window
  return prior;
}

export async function replyTo(userId) {
  const t = state.cur.tree;
  state.win.follow = true; // asked for, as a send: the view goes to the reply while the user stays at the bottom
  await reply({ prior: priorTo(t, userId, true), upTo: userId, again: () => replyTo(userId) }, (t, m) => appendAfter(t, userId, m));
}

/** Appends a reply after the user's message, even if the user moved to another branch while it was on its way. */
export function appendAfter(t, userId, message) {
  if (t.pathWindow(-1).ids[0] !== userId) t.open(userId);
  return t.append(message); // the view follows it only if the user did not scroll up meanwhile (state.win.follow)
}
