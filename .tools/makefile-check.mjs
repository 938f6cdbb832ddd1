// makefile-check: fails when a rule's targets or prerequisites name a variable
// the Makefile defines only further down. Make expands those when it reads the
// rule, so the name is empty there: bench-huge once listed $(WEB_SERVE) above
// its definition and, on a fresh clone, never built the server it then ran.
import fs from "node:fs";

const file = process.argv[2] ?? "Makefile";
const lines = fs.readFileSync(file, "utf8").split("\n");
const defined = new Map();
lines.forEach((l, i) => {
  const m = /^([A-Za-z_][A-Za-z_0-9]*)\s*(?::=|\?=|\+=|=)/.exec(l);
  if (m && !defined.has(m[1])) defined.set(m[1], i + 1);
});
let bad = 0;
lines.forEach((l, i) => {
  if (l.startsWith("\t") || l.startsWith("#")) return;
  const m = /^([^=\t#]*?):(?!=)(.*)$/.exec(l);
  if (!m) return;
  for (const [, v] of (m[1] + " " + m[2]).matchAll(/\$\(([A-Za-z_][A-Za-z_0-9]*)\)/g)) {
    const at = defined.get(v);
    if (at !== undefined && at > i + 1) {
      console.log(`${file}:${i + 1}: $(${v}) is defined only at line ${at}; a rule's prerequisites are expanded when it is read`);
      bad++;
    }
  }
});
process.exit(bad ? 1 : 0);
