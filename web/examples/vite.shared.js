// The example apps' Vite configuration: React through @vitejs/plugin-react,
// `sessiontree` and its subpaths from the package's own files in js/ (as an
// app that installed the package gets them), and every other bare import
// (React, assistant-ui, the AI SDK) from the pinned tools in .tools/node_modules
// (package-lock.json there): the examples add no packages of their own.
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, "../..");
const tools = path.join(repo, ".tools");
const pkg = path.join(repo, "js");

// resolves sessiontree's entries to js/ and other bare imports as if made
// from .tools/package.json (so node_modules there is searched, with Vite's
// own resolution of "exports" and browser conditions).
const resolvePackages = {
  name: "sessiontree-examples-resolve",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (source === "sessiontree") return path.join(pkg, "sessiontree.js");
    const sub = source.match(/^sessiontree\/([\w-]+)$/);
    if (sub) return path.join(pkg, `${sub[1]}.js`);
    if (/^[./]|^\0|^[a-z]+:/i.test(source) || !importer || importer.startsWith(tools)) return null;
    return this.resolve(source, path.join(tools, "package.json"), { ...options, skipSelf: true });
  },
};

/**
 * The configuration of the example app in dir: index.html (with sessiontree)
 * or, with baseline, baseline.html (the same app without it), built into
 * web/examples/dist/<app>[-baseline].
 */
export async function exampleConfig(dir, { baseline = false } = {}) {
  const require = createRequire(path.join(tools, "package.json"));
  const { default: react } = await import(pathToFileURL(require.resolve("@vitejs/plugin-react")).href);
  const name = path.basename(dir) + (baseline ? "-baseline" : "");
  return {
    configFile: false,
    root: dir,
    base: "./",
    logLevel: "error",
    plugins: [resolvePackages, react()],
    worker: { format: "es" },
    server: { fs: { allow: [repo] } },
    build: {
      outDir: path.join(here, "dist", name),
      emptyOutDir: true,
      target: "es2022",
      reportCompressedSize: false,
      chunkSizeWarningLimit: 4096,
      rollupOptions: { input: path.join(dir, baseline ? "baseline.html" : "index.html") },
    },
  };
}
