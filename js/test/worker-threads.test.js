// sessiontree/worker (js/worker.js) in Node, over a worker_threads Worker
// that stands in for a Web Worker (connect's options.worker): what needs a
// collection of the page's objects, which a page's test cannot force.
import { test, assert, isNode } from "./harness.js";

if (isNode) {
  const { Worker } = await import("node:worker_threads");
  const v8 = await import("node:v8");
  const vm = await import("node:vm");
  const { connect } = await import("../worker.js");
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc");

  // A Web Worker's globals over worker_threads; messages that come before
  // the worker's script has loaded wait for it. A Blob of UNREADABLE bytes
  // reads as a File changed on disk since it was picked does in a browser
  // (a DOMException, NotReadableError, whose code is the number 0).
  const UNREADABLE = "unreadable file";
  const shim = `
    const { parentPort } = require("node:worker_threads");
    globalThis.self = globalThis;
    globalThis.postMessage = (msg, transfer) => parentPort.postMessage(msg, transfer);
    const read = Blob.prototype.arrayBuffer;
    Blob.prototype.arrayBuffer = function () {
      if (this.size === ${UNREADABLE.length}) return Promise.reject(new DOMException("The requested file could not be read", "NotReadableError"));
      return read.call(this);
    };
    const early = [];
    let ready = false;
    parentPort.on("message", (data) => (ready ? globalThis.onmessage({ data }) : early.push(data)));
    import(${JSON.stringify(new URL("../sessiontree.worker.js", import.meta.url).href)}).then(() => {
      ready = true;
      for (const data of early) globalThis.onmessage({ data });
    });`;
  async function threadWorker() {
    const w = new Worker(shim, { eval: true });
    const worker = { onmessage: null, onerror: null, postMessage: (m, t) => w.postMessage(m, t), terminate: () => w.terminate() };
    w.on("message", (data) => worker.onmessage?.({ data }));
    w.on("error", (e) => worker.onerror?.(e));
    const st = await connect(undefined, { worker });
    return { st, close: () => { st.close(); w.terminate(); } };
  }

  const conv = (i) => ({
    id: `c${i}`, title: `Chat ${i}`, current_node: `m${i}`,
    mapping: { [`m${i}`]: { id: `m${i}`, parent: null, children: [], message: { id: `m${i}`, author: { role: "user" }, content: { content_type: "text", parts: [`hi ${i} ` + "x".repeat(1000)] } } } },
  });

  // An importEach whose iterator is dropped half-way, neither run to its
  // end nor given up with return(), lets the worker's module go of the file
  // once it is collected, as the page's importEach does: the worker kept
  // every such file for its life (+3.6 MB a drop of a 3.6 MB export).
  test("worker: an importEach dropped half-way gives its file up in the worker", async () => {
    const { st, close } = await threadWorker();
    try {
      await st.initInterchange();
      const file = new Blob([JSON.stringify(Array.from({ length: 3000 }, (_, i) => conv(i)))]);
      const drop = async () => {
        const it = st.SessionTree.importEach(file);
        const first = await it.next();
        assert.equal(first.value.title, "Chat 0");
        await first.value.tree.free();
      };
      const settle = async () => {
        for (let i = 0; i < 3; i++) {
          gc();
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await st.memoryUsage(); // after the importEnd the collection sent
      };
      await drop();
      await settle();
      const after1 = (await st.memoryUsage()).interchange;
      for (let i = 0; i < 8; i++) {
        await drop();
        await settle();
      }
      const after9 = (await st.memoryUsage()).interchange;
      // Memory is reused, not given back: 7.9 MB more after 8 or 24 drops
      // (35 MB after 8 when each kept its file).
      assert.ok(after9 - after1 < 4 * file.size, `8 more dropped imports of a ${file.size}-byte file grew the worker's module by ${after9 - after1} bytes`);
      // The worker still reads every conversation.
      let n = 0;
      for await (const c of st.SessionTree.importEach(file, "chatgpt", { files: true })) n += c.file.length > 0;
      assert.equal(n, 3000);
    } finally {
      close();
    }
  });

  // A File the browser can no longer read is an invalid_input naming it, not
  // a SessionTreeError whose code is the DOMException's number.
  test("worker: importEach of a File that cannot be read rejects with invalid_input", async () => {
    const { st, close } = await threadWorker();
    try {
      await st.initInterchange();
      const it = st.SessionTree.importEach(new Blob([UNREADABLE]));
      await assert.rejects(it.next(), "invalid_input", /importEach: reading the file failed: The requested file could not be read/);
      assert.deepEqual(await it.next(), { value: undefined, done: true });
    } finally {
      close();
    }
  });
}
