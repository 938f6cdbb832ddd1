// Serves the worker with Miniflare's API: the workerd and the local D1 and
// Durable Object storage that `wrangler dev` runs it on, without wrangler's
// proxy in front (a development tool that carries every request and frame
// through a workerd and a Node process of its own: on a 2-core machine its
// turns are part of every latency measured through it). devserver.Start with
// Options.Direct runs it; the benchmark's -direct measures the worker so.
//
//   node direct.mjs MINIFLARE_INDEX DIR CONFIG PORT PERSIST [NAME=VALUE…]
//
// It reads the few keys of CONFIG (a wrangler.toml) that the worker uses:
// main, compatibility_date, [[d1_databases]] binding and migrations_dir,
// [[durable_objects.bindings]] name and class_name, [[migrations]]
// new_sqlite_classes. It applies the D1 migrations, listens on 127.0.0.1:PORT
// and prints "ready" once the worker answers.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [, , index, dir, config, port, persist, ...vars] = process.argv;
const { Miniflare } = await import(pathToFileURL(index).href);

// toml reads the tables and keys listed above from wrangler.toml's text.
function toml(text) {
  const top = {}, arrays = {};
  let at = top;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const table = /^\[\[([\w.]+)\]\]$/.exec(line);
    if (table) {
      at = {};
      (arrays[table[1]] ??= []).push(at);
      continue;
    }
    const kv = /^(\w+)\s*=\s*(.+)$/.exec(line);
    if (kv) at[kv[1]] = JSON.parse(kv[2]);
  }
  return { top, arrays };
}

const { top, arrays } = toml(fs.readFileSync(path.join(dir, config), "utf8"));
const main = path.join(dir, top.main);
const sqlite = new Set((arrays.migrations ?? []).flatMap((m) => m.new_sqlite_classes ?? []));
const bindings = {};
for (const v of vars) {
  const i = v.indexOf("=");
  bindings[v.slice(0, i)] = v.slice(i + 1);
}
const d1 = arrays.d1_databases ?? [];
const mf = new Miniflare({
  host: "127.0.0.1",
  port: Number(port),
  modules: true,
  scriptPath: main,
  modulesRoot: path.dirname(main),
  modulesRules: [
    { type: "CompiledWasm", include: ["**/*.wasm"] },
    { type: "ESModule", include: ["**/*.mjs", "**/*.js"] },
  ],
  compatibilityDate: top.compatibility_date,
  d1Databases: Object.fromEntries(d1.map((d) => [d.binding, d.database_id ?? d.binding])),
  d1Persist: path.join(persist, "d1"),
  durableObjects: Object.fromEntries((arrays["durable_objects.bindings"] ?? []).map((b) =>
    [b.name, { className: b.class_name, useSQLite: sqlite.has(b.class_name) }])),
  durableObjectsPersist: path.join(persist, "do"),
  bindings,
});
await mf.ready;
// The migrations not yet applied to PERSIST, each once, in order (their
// statements hold no ";" but the ones that end them).
for (const d of d1) {
  const db = await mf.getD1Database(d.binding);
  await db.prepare("CREATE TABLE IF NOT EXISTS direct_migrations (name TEXT PRIMARY KEY)").run();
  const from = path.join(dir, d.migrations_dir ?? "migrations");
  for (const f of fs.readdirSync(from).filter((f) => f.endsWith(".sql")).sort()) {
    if (await db.prepare("SELECT 1 FROM direct_migrations WHERE name = ?").bind(f).first()) continue;
    const sql = fs.readFileSync(path.join(from, f), "utf8").replace(/--.*$/gm, "");
    for (const stmt of sql.split(";").map((s) => s.trim()).filter(Boolean)) await db.prepare(stmt).run();
    await db.prepare("INSERT INTO direct_migrations (name) VALUES (?)").bind(f).run();
  }
}
console.log("ready");
process.on("SIGTERM", () => mf.dispose().finally(() => process.exit(0)));
