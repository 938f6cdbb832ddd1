// Node module hooks that load a .wasm import as workerd does: its default
// export is the compiled WebAssembly.Module. With them the package's workerd
// entry (sessiontree.workerd.js) runs in Node for the tests:
//   register(new URL("./workerd-hooks.mjs", import.meta.url))
export async function load(url, context, next) {
  if (url.startsWith("file:") && url.endsWith(".wasm")) {
    return {
      format: "module",
      shortCircuit: true,
      source: `import fs from "node:fs"; export default new WebAssembly.Module(fs.readFileSync(new URL(${JSON.stringify(url)})));`,
    };
  }
  return next(url, context);
}
