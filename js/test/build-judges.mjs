// Bundles js/test/judges.entry.js (the pinned `ai` and `@assistant-ui/core`
// from .tools/node_modules) into js/test/build/judges.js for the browser page;
// under Node the tests import the packages themselves (judges.js).
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, "..", "..", ".tools", "node_modules");
const esbuild = createRequire(path.join(modules, "..", "package.json"))("esbuild");
await esbuild.build({
  entryPoints: [path.join(here, "judges.entry.js")],
  outfile: path.join(here, "build", "judges.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  nodePaths: [modules],
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
});
