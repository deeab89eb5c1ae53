module example.com/platform

go 1.26.0

require golang.org/x/mod v0.20.0
