module github.com/kubetenant/kubetenant

go 1.26.0
