//go:build js && wasm

package core

const isWasm = true
