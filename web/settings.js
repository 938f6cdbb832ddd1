// The assistant settings dialog's parts that are views of their own (the
// dialog itself is still in app.js): the Model field's suggestions.
import { el } from "./dom.js";
import { listModels } from "./assistant.js";

let asked = ""; // the endpoint (api, URL, key) whose models a datalist holds or is being filled with

/**
 * Fills the Model field's datalist with the models the endpoint lists, for
 * the endpoint as typed in the dialog (settings: the saved settings with the
 * form's values over them, saved or not), once per endpoint and list.
 */
export function suggestModels(list, settings) {
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
