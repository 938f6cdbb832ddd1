//go:build js && wasm

// Command bare is the yardstick for the module's size and start-up time: a Go
// WebAssembly program that uses only syscall/js and does nothing else.
package main

import "syscall/js"

func main() {
	js.Global().Set("bareReady", true)
	select {}
}
