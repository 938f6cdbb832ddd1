// The README's JavaScript quickstart runs as written: its first ```js block
// under "## Quickstart" is run as a module, its import pointed at this
// checkout's sessiontree.js, with a localStorage for the line that stores the
// tree. The README is read from disk, so this runs under node --test only (the
// browser page serves js/, not the README); the same API runs in Chromium in
// sessiontree.test.js.
import { test, assert, isNode } from "./harness.js";

if (isNode) {
  const fs = await import("node:fs");
  const { fileURLToPath, pathToFileURL } = await import("node:url");
  const readme = fileURLToPath(new URL("../../README.md", import.meta.url));
  const api = pathToFileURL(fileURLToPath(new URL("../sessiontree.js", import.meta.url))).href;

  // quickstart returns the first ```js block after the "## Quickstart" heading.
  const quickstart = () => {
    const text = fs.readFileSync(readme, "utf8");
    const at = text.indexOf("\n## Quickstart");
    assert.ok(at >= 0, "the README has no Quickstart section");
    const block = /```js\n([\s\S]*?)```/.exec(text.slice(at));
    assert.ok(block, "the Quickstart section has no js block");
    return block[1];
  };

  test("the README's JavaScript quickstart runs as written and stores a tree that loads back", async () => {
    const code = quickstart();
    assert.ok(code.includes('from "./js/sessiontree.js"'), "the quickstart no longer imports ./js/sessiontree.js: update this test");
    const stored = new Map();
    const had = Object.getOwnPropertyDescriptor(globalThis, "localStorage");
    globalThis.localStorage = new Proxy({}, {
      set: (_, k, v) => (stored.set(k, String(v)), true),
      get: (_, k) => stored.get(k),
    });
    // The block's last line is what a page runs; the assertions below read its result.
    const module = code.replace('from "./js/sessiontree.js"', `from ${JSON.stringify(api)}`) +
      "\nexport { t, request };\n";
    try {
      const { t, request } = await import("data:text/javascript;base64," + Buffer.from(module).toString("base64"));
      const { SessionTree } = await import(api);
      assert.equal(t.pathLength(), 2, "hi, take two");
      assert.equal(t.pathWindow(-1).messages[0].content, "take two");
      assert.equal(t.siblings(t.activePath()[1]).index, 1, "the rewind made a second reply");
      assert.equal(t.branches().some((b) => b.name === "branch-1"), true, "the first reply keeps a branch");
      assert.equal(request.messages.length, 2);
      const json = stored.get("tree");
      assert.equal(typeof json, "string", "the quickstart stores the tree in localStorage.tree");
      assert.equal(SessionTree.load(json).save(), json, "the stored tree loads back byte for byte");
      t.free();
    } finally {
      if (had) Object.defineProperty(globalThis, "localStorage", had);
      else delete globalThis.localStorage;
    }
  });
}
