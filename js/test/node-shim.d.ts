// The two Node names the `ai` package's declarations mention (its server
// helpers take a ServerResponse; file data may be a Buffer), for tsc on the
// adapters without @types/node, which the project does not pin.
declare module "node:http" {
  export interface ServerResponse { write(chunk: unknown): boolean; end(): void }
}
declare module "http" {
  export { ServerResponse } from "node:http";
}
type Buffer = Uint8Array;
