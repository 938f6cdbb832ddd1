// What the package's page tests (idb.mjs, react.mjs) share: js/ served on a
// loopback port (and React from .tools/node_modules under /node_modules/), and
// headless Chromium (Debian's, as root) in a fresh profile.
import http from "node:http";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const root = path.dirname(path.dirname(fileURLToPath(import.meta.url))); // js/
const tools = path.join(root, "..", ".tools");
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".html": "text/html", ".json": "application/json" };

/** Serves js/ (and, under /node_modules/, the pinned tools' packages) on a free loopback port. */
export async function serveJS(extra = {}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (extra[url.pathname]) {
      res.writeHead(200, { "content-type": types[path.extname(url.pathname)] ?? "text/html" }).end(extra[url.pathname]);
      return;
    }
    if (url.pathname === "/favicon.ico") return res.writeHead(204).end();
    if (url.pathname === "/test/blank.html") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><meta charset=utf-8><title>sessiontree</title>");
      return;
    }
    const base = url.pathname.startsWith("/node_modules/") ? tools : root;
    const file = path.join(base, path.normalize(decodeURIComponent(url.pathname)));
    if (!file.startsWith(base)) return res.writeHead(403).end();
    try {
      const body = await fs.readFile(file);
      res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

/** Launches headless Chromium with a fresh profile named after the test; close() removes it. */
export async function launch(name) {
  const { chromium } = createRequire(path.join(tools, "package.json"))("playwright-core");
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), `st-js-${name}-`));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  return {
    browser,
    async close() {
      await browser.close();
      await fs.rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens a tab of browser on base's blank page with sessiontree (window.st,
 * started) and sessiontree/idb (window.idb) loaded; page errors and console
 * errors are pushed to errors.
 */
export async function storeTab(browser, base, errors) {
  const page = await browser.newPage();
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => m.type() === "error" && errors.push(`console: ${m.text()}`));
  await page.goto(`${base}/test/blank.html`);
  await page.evaluate(async () => {
    window.st = await import("/sessiontree.js");
    window.idb = await import("/idb.js");
    await window.st.init();
  });
  return page;
}
