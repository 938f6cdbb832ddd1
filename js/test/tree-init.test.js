// init() once a module is loaded: the first module stays, and asking for the
// full one after the lean one (an app's init({ full: true }) after
// sessiontree/idb's own init()) loads the interchange module beside it, so
// merge, import, export and projectFor work. Before Dec 5 the second call did
// nothing and they threw invalid_input. (In Chromium every test file shares
// one page, where another file may have loaded the helper already; the Node
// run, one process per file, is the one that would fail.)
import { test, assert } from "./harness.js";
import { init, SessionTree } from "../sessiontree.js";

test("init({ full: true }) after the lean module makes merge, import, export and projectFor work", async () => {
  await init();
  await init({ full: true });
  const t = SessionTree.fromLinear([{ role: "user", content: "hi" }], 1);
  const other = t.clone();
  other.append({ role: "assistant", content: "hello" }, 2);
  assert.ok(t.merge(other).changed);
  assert.ok(t.export("openai").includes("hello"));
  assert.equal(SessionTree.import(t.export("openai"), "openai").tree.activePath().length, 2);
  assert.equal(t.projectFor("openai-chat").request.messages.length, 2);
});
