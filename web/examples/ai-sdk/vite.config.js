// node ../../../.tools/node_modules/vite/bin/vite.js build (EXAMPLE_BASELINE=1: the app without sessiontree)
import { exampleConfig } from "../vite.shared.js";
export default exampleConfig(import.meta.dirname, { baseline: process.env.EXAMPLE_BASELINE === "1" });
