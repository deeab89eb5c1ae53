module github.com/kubetenant/kubetenant/operator

go 1.26.0

require github.com/kubetenant/kubetenant v0.0.0

replace github.com/kubetenant/kubetenant => ../
