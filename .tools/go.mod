// Pinned developer/test tools for sessiontree; a module of its own, separate from the
// project's go.mod. Built by install.sh into .tools/bin.
//
// wasmbrowsertest v0.11.0 ships with chromedp v0.10.0 / a 2024 cdproto, which cannot decode
// the IPAddressSpace "Loopback" value that current Chromium sends and logs
// "ERROR: could not unmarshal event: unknown IPAddressSpace value: Loopback" for every
// request. chromedp v0.16.0 (the newest release before chromedp's generic API rewrite,
// which v0.11.0 does not compile against) with its cdproto knows that value: no noise.
module sessiontree-tools

go 1.26

tool github.com/agnivade/wasmbrowsertest

require (
	github.com/agnivade/wasmbrowsertest v0.11.0 // indirect
	github.com/chromedp/cdproto v0.0.0-20260714215040-dc233986426f // indirect
	github.com/chromedp/chromedp v0.16.0 // indirect
	github.com/chromedp/sysutil v1.1.0 // indirect
	github.com/go-interpreter/wagon v0.6.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
	github.com/gobwas/httphead v0.1.0 // indirect
	github.com/gobwas/pool v0.2.1 // indirect
	github.com/gobwas/ws v1.4.0 // indirect
	github.com/google/pprof v0.0.0-20240727154555-813a5fbdbec8 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
