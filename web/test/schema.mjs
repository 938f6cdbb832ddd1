// The judge of a request body: the request types each API publishes in its
// official SDK (npm openai, @anthropic-ai/sdk, pinned in .tools/package-lock.json),
// checked by tsc. Every body becomes an object literal assigned to the SDK's
// create-params type, so a missing or mistyped field, an unknown role or a field
// the API does not have (excess property) fails. Two bodies that must fail are
// checked with them (@ts-expect-error), so a judge that accepts everything fails too.
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { repo } from "./start.mjs";

const modules = path.join(repo, ".tools", "node_modules");

// The SDK type for a body of api, streamed or not.
const TYPES = {
  openai: ["ChatCompletionCreateParamsStreaming", "ChatCompletionCreateParamsNonStreaming"],
  anthropic: ["MessageCreateParamsStreaming", "MessageCreateParamsNonStreaming"],
};

const HEADER = [
  'import type { ChatCompletionCreateParamsStreaming, ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";',
  'import type { MessageCreateParamsStreaming, MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";',
  "// Must fail: a role chat completions does not have, a tree field in an Anthropic message.",
  "// @ts-expect-error",
  'export const wrong0: ChatCompletionCreateParamsNonStreaming = {"model":"m","messages":[{"role":"bot","content":"x"}]};',
  "// @ts-expect-error",
  'export const wrong1: MessageCreateParamsNonStreaming = {"model":"m","max_tokens":16,"messages":[{"role":"user","content":"x","created_at_ms":1}]};',
];

/**
 * Type-checks every { api, body } against its API's SDK request type. Resolves to
 * { checked, errors: ["request i (api): tsc's message", …] }.
 */
export async function judgeBodies(requests) {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "st-schema-"));
  try {
    const lines = [...HEADER];
    const first = lines.length + 1; // the line of request 0
    requests.forEach(({ api, body }, i) => {
      const type = TYPES[api][body.stream === true ? 0 : 1];
      lines.push(`export const body${i}: ${type} = ${JSON.stringify(body)};`);
    });
    await fs.writeFile(path.join(dir, "bodies.ts"), lines.join("\n") + "\n");
    await fs.writeFile(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        target: "es2022", module: "esnext", moduleResolution: "bundler", lib: ["es2022", "dom"],
        strict: true, noEmit: true, skipLibCheck: true, types: [],
        paths: { "openai/*": [path.join(modules, "openai/*")], "@anthropic-ai/sdk/*": [path.join(modules, "@anthropic-ai/sdk/*")] },
      },
      files: ["bodies.ts"],
    }));
    const out = await new Promise((resolve) => {
      execFile(path.join(modules, ".bin", "tsc"), ["-p", path.join(dir, "tsconfig.json"), "--pretty", "false"], { cwd: dir, maxBuffer: 1 << 24 }, (err, stdout, stderr) => resolve({ err, text: `${stdout}${stderr}` }));
    });
    const errors = [];
    for (const line of out.text.split("\n").filter(Boolean)) {
      const m = line.match(/bodies\.ts\((\d+),\d+\): (.*)$/);
      const i = m ? Number(m[1]) - first : -1;
      errors.push(i >= 0 && i < requests.length ? `request ${i} (${requests[i].api}): ${m[2]}` : line);
    }
    if (out.err && errors.length === 0) errors.push(`tsc did not run: ${out.err.message}`); // never a silent pass
    return { checked: requests.length, errors };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
