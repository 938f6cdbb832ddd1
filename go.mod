module github.com/sessiontree/sessiontree

go 1.26

require (
	github.com/hack-pad/safejs v0.1.0
	github.com/syumai/workers v0.33.0
)
