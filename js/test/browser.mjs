// Runs the JS API's test files in headless Chromium: serves js/ on loopback,
// opens a page that imports them, and prints each test's outcome.
//   node js/test/browser.mjs js/test/*.test.js
// SESSIONTREE_FLAVOUR=full opens the page with ?flavour=full: the tests load
// the full module as the main one (see harness.js).
import http from "node:http";
import fs from "node:fs/promises";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url))); // js/
const tools = createRequire(path.join(root, "..", ".tools", "package.json"));
const { chromium } = tools("playwright-core");
// One page imports every file in turn, and some check what a call does before
// init or initInterchange: sessiontree.test.js first, then the tree-*.test.js,
// then the rest (the adapters' tests load both modules at their top).
const rank = (f) => (/(^|\/)sessiontree\.test\.js$/.test(f) ? 0 : /(^|\/)tree-[^/]*\.test\.js$/.test(f) ? 1 : 2);
const files = process.argv.slice(2).map((f) => path.relative(root, path.resolve(f)).split(path.sep).join("/"))
  .map((f, i) => [f, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([f]) => f);
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };

const page = `<!doctype html><meta charset="utf-8"><script type="module">
import { runCollected } from "/test/harness.js";
${files.map((f) => `await import("/${f}");`).join("\n")}
window.__results = await runCollected();
</script>`;

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, "http://x");
  if (url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html" }).end(page);
    return;
  }
  const file = path.join(root, path.normalize(decodeURIComponent(url.pathname)));
  if (!file.startsWith(root)) return res.writeHead(403).end();
  try {
    const body = await fs.readFile(file);
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const userDataDir = await fs.mkdtemp(path.join((await import("node:os")).tmpdir(), "st-chromium-"));
const browser = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run"],
});
let failed = 0;
try {
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(String(e)));
  const flavour = process.env.SESSIONTREE_FLAVOUR === "full" ? "full" : "lean";
  await tab.goto(`http://127.0.0.1:${server.address().port}/${flavour === "full" ? "?flavour=full" : ""}`);
  const results = await tab.waitForFunction(() => window.__results, null, { timeout: 240000 })
    .then((h) => h.jsonValue())
    .catch((e) => { errors.push(String(e)); return []; });
  for (const r of results) {
    console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}${r.ok ? "" : "\n" + r.error}`);
    if (!r.ok) failed++;
  }
  for (const e of errors) { console.log("page error:", e); failed++; }
  if (results.length === 0) failed++;
  console.log(`# chromium (${flavour} module): ${results.length - (results.filter((r) => !r.ok).length)} passed, ${failed} failed`);
} finally {
  await browser.close();
  server.close();
  await fs.rm(userDataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
