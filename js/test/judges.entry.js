// The real judges of the adapters, bundled for the browser page by
// js/test/build-judges.mjs (make test-js): the AI SDK's validateUIMessages and
// assistant-ui's MessageRepository, from the pinned packages in .tools.
export { validateUIMessages, safeValidateUIMessages } from "ai";
export { MessageRepository, fromThreadMessageLike } from "@assistant-ui/core/internal";
