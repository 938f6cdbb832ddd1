// The assistant settings dialog (openSettings: where replies come from, the
// endpoint, the budget, the conversation's system prompt, and what the next
// request sends), and the Model field's suggestions.
import { el, openForm, describe } from "./dom.js";
import { APIS, saveSettings, usesEndpoint, listModels } from "./assistant.js";
import { state, renderAll, prepareRequests } from "./app.js";
import { write } from "./conversations.js";
import { requestFor } from "./reply.js";

export async function openSettings() {
  const s = state.settings;
  // What the next request would be, as the library projects it (shown, not sent).
  let preview = "Configure an endpoint to see the request.";
  if (usesEndpoint(s) && state.cur?.tree?.pathLength()) {
    try {
      const { body, report } = await requestFor();
      const text = JSON.stringify(body, null, 2);
      preview = `${report.sent} message${report.sent === 1 ? "" : "s"}, about ${report.tokens} tokens` +
        (report.budgetDropped ? `; ${report.budgetDropped} older left out by the budget of ${s.budget} tokens, ` +
          (report.summarized.length ? `with the summaries of ${report.summarized.join(", ")} in their place` : "with no summary in their place") +
          (report.unsummarized ? ` (${report.unsummarized} other branch${report.unsummarized === 1 ? " has" : "es have"} none)` : "") : "") +
        (report.dropped ? `; ${report.dropped} no model sees left out` : "") +
        `\n\nPOST ${s.api === "anthropic" ? "/messages" : "/chat/completions"}\n${text.length > 20000 ? `${text.slice(0, 20000)}\n\u2026 (${text.length - 20000} more characters)` : text}`;
    } catch (e) {
      preview = `The request could not be built: ${describe(e)}`;
    }
  }
  const v = await openForm({
    title: "Assistant",
    fields: [
      { name: "mode", type: "radio", label: "Replies come from", value: s.mode, options: [
        { value: "demo", label: "The demo assistant", hint: "built in, offline, deterministic; summaries are stubs" },
        { value: "endpoint", label: "A model endpoint", hint: "streamed; also used to summarize branches" },
      ] },
      { name: "api", type: "radio", label: "The endpoint speaks", value: s.api, options: APIS },
      { name: "url", label: "Endpoint URL", type: "url", value: s.url, placeholder: "https://api.example.com/v1" },
      { name: "key", label: "API key", type: "password", value: s.key, placeholder: "Bearer token (OpenAI) or x-api-key (Anthropic); may be empty for local servers" },
      {
        name: "model", label: "Model", value: s.model, placeholder: "e.g. gpt-4o-mini, claude-sonnet-4-5, llama3.1",
        suggest: (list, now) => suggestModels(list, { ...s, ...now }),
      },
      { name: "budget", label: "Context budget (approximate tokens; older turns beyond it are left out and summarized)", value: String(s.budget), placeholder: "32000" },
      { name: "timeout", label: "Timeout (seconds without a token)", value: String(s.timeout), placeholder: "60" },
      { name: "system", type: "textarea", label: "System prompt for this conversation", value: state.cur?.meta.system ?? "", placeholder: "e.g. Answer briefly." },
      { type: "pre", label: "What the next request sends", text: preview },
      { type: "note", text: "These settings stay in this browser (localStorage) and are sent nowhere but the endpoint." },
    ],
    ok: "Save",
    check: (v) => {
      if (!(Number(v.budget) >= 0)) return "The budget is a number of tokens (0: no limit).";
      if (!(Number(v.timeout) > 0)) return "The timeout is a number of seconds.";
      if (v.mode !== "endpoint") return null;
      try {
        const u = new URL(v.url.trim());
        if (!/^https?:$/.test(u.protocol)) return "The URL must start with http:// or https://.";
      } catch {
        return "Enter the endpoint's URL, e.g. https://api.example.com/v1.";
      }
      return v.model.trim() === "" ? "Enter the model's name." : null;
    },
  });
  if (!v) return;
  state.settings = { mode: v.mode, api: v.api, url: v.url.trim(), key: v.key.trim(), model: v.model.trim(), budget: Number(v.budget), timeout: Number(v.timeout) };
  saveSettings(state.settings);
  prepareRequests();
  const cur = state.cur;
  if (cur && (cur.meta.system ?? "") !== v.system.trim()) {
    cur.meta.system = v.system.trim();
    write(() => state.store.update(cur.meta.id, { system: cur.meta.system }));
  }
  renderAll();
}

let asked = ""; // the endpoint (api, URL, key) whose models a datalist holds or is being filled with

/**
 * Fills the Model field's datalist with the models the endpoint lists, for
 * the endpoint as typed in the dialog (settings: the saved settings with the
 * form's values over them, saved or not), once per endpoint and list.
 */
function suggestModels(list, settings) {
  let url;
  try {
    url = new URL(settings.url.trim());
  } catch {
    return; // no endpoint typed yet
  }
  if (!/^https?:$/.test(url.protocol)) return;
  const endpoint = { ...settings, url: settings.url.trim(), key: settings.key.trim() };
  const key = JSON.stringify([endpoint.api, endpoint.url, endpoint.key]);
  if (key === asked && list.children.length) return;
  asked = key;
  listModels(endpoint, AbortSignal.timeout(5000)).then(
    (ids) => { if (asked === key) list.replaceChildren(...ids.map((id) => el("option", { value: id }))); },
    () => { if (asked === key) asked = ""; }, // not listed (no /models, CORS): the field stays free text
  );
}
