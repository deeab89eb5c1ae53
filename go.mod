module github.com/kubetenant/kubetenant

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/mod v0.43.0
)
