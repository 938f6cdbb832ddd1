// Package treecalls is the call table of sessiontree's browser module: every
// tree method JavaScript calls (SPEC §5), on trees kept in Go behind handles,
// with the message slots JS caches (slots.go). The lean module (wasm/module)
// serves Lean(); the full flavour (wasm/interchange) serves the same table with
// merge in place, import and export after it (wasm/internal/fullcalls). Nothing
// here calls core.Merge or core/formats, so the lean module links neither.
package treecalls
