// The adapters' judges, the real packages at their pinned versions: under
// Node imported from .tools/node_modules, in the browser page from the bundle
// js/test/build-judges.mjs makes (make test-js runs it).
import { isNode } from "./harness.js";

const tools = (p) => new URL(`../../.tools/node_modules/${p}`, import.meta.url).href;
const judges = isNode
  ? { ...(await import(tools("ai/dist/index.mjs"))), ...(await import(tools("@assistant-ui/core/dist/internal.js"))) }
  : await import("./build/judges.js");

/** The `ai` package's validateUIMessages. */
export const validateUIMessages = judges.validateUIMessages;
/** assistant-ui's MessageRepository (from @assistant-ui/core's internal entry). */
export const MessageRepository = judges.MessageRepository;
/** assistant-ui's fromThreadMessageLike: what its runtimes load a message with. */
export const fromThreadMessageLike = judges.fromThreadMessageLike;
