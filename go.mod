module github.com/sessiontree/sessiontree

go 1.26
