module github.com/kubetenant/kubetenant

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/pelletier/go-toml/v2 v2.4.3
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/mod v0.43.0
)
