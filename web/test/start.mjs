// What the page's browser tests share: web/serve on a free loopback port over
// web/dist, and headless Chromium (Debian's, as root) in a fresh profile.
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Starts web/.bin/serve on dir (default web/dist); resolves to { server, base } once it serves. */
export async function serveDist(dir = path.join(repo, "web/dist")) {
  const server = spawn(path.join(repo, "web/.bin/serve"), ["-dir", dir, "-addr", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  process.on("exit", () => server.exitCode === null && server.kill());
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("web/serve did not start within 10 s")), 10000);
    let out = "";
    server.stdout.on("data", (b) => {
      out += b;
      const m = out.match(/serving (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on("exit", (code) => reject(new Error(`web/serve exited with ${code}`)));
    server.on("error", (e) => reject(new Error(`web/.bin/serve: ${e.message} (make web-dist builds it)`)));
  });
  return { server, base };
}

/** Launches headless Chromium with a fresh profile named after the test; close() removes it. */
export async function launchChromium(name, options = {}) {
  const { chromium } = createRequire(path.join(repo, ".tools", "package.json"))("playwright-core");
  const userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), `st-web-${name}-`));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    ...options,
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
 * Opens the page at base in a new tab of browser and waits until it is ready;
 * page errors and console errors are pushed to errors (a test fails on any),
 * but for the browser's own lines about a failed request while allowNetwork()
 * says so (a step against an endpoint that fails on purpose).
 */
export async function openPage(browser, base, errors, timeout = 15000, allowNetwork = () => false) {
  const page = await browser.newPage();
  page.setDefaultTimeout(timeout);
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (allowNetwork() && /Failed to load resource|ERR_|500|503/.test(m.text())) return;
    errors.push(`console: ${m.text()}`);
  });
  await page.goto(base);
  await page.waitForSelector("body[data-ready='1']");
  return page;
}

/** Runs one step of a test and prints its name and time once it passed. */
export async function step(name, fn) {
  const t0 = performance.now();
  await fn();
  console.log(`ok   ${name} (${Math.round(performance.now() - t0)} ms)`);
}
