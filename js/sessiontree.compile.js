// sessiontree's compiler, a dedicated worker that js/sessiontree.js starts in a
// page: it fetches one WebAssembly module, compiles it and posts the
// WebAssembly.Module back (cloned to the page), or { error } when it cannot.
// The page's thread then only instantiates it: compiled there, the full module
// held that thread for 140–300 ms at a time in Chromium.
onmessage = async (e) => {
  try {
    const res = await fetch(e.data);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const streaming = WebAssembly.compileStreaming && (res.headers.get("content-type") ?? "").startsWith("application/wasm");
    postMessage(streaming ? await WebAssembly.compileStreaming(res) : await WebAssembly.compile(await res.arrayBuffer()));
  } catch (err) {
    postMessage({ error: String(err?.message ?? err) });
  }
};
