module example.com/tools

go 1.26

require (
	// pinned: v0.8.0 panics on generic aliases, golang/go#70100
	golang.org/x/tools v0.7.0
	golang.org/x/mod v0.43.0 // indirect
)
