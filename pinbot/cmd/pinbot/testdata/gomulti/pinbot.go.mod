module example.com/platform/pinbot

go 1.26.0

require github.com/google/go-github/v60 v60.0.0
