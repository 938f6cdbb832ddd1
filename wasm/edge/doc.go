// Package edge is the HTTP API of the edge worker (SPEC §6) over stored trees:
// routing, bearer-token auth, tenants, limits and JSON errors, over a small
// Store interface. It has no syumai/workers import, so it runs and is tested
// natively; wasm/worker wires it to the Workers runtime and to D1.
//
// A Handler keeps the trees it has loaded in memory, keyed by tree id, and
// checks them against the stored version on every request: an append reads and
// writes only the rows that it touches (one per node and per branch), however
// large the tree, and a write that lost a race to another isolate is retried on
// a fresh copy, so no write is lost.
package edge
