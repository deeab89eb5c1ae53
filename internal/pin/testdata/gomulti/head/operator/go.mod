module example.com/platform/operator

go 1.26.0

require (
	example.com/platform v0.0.0
	k8s.io/api v0.37.2
	k8s.io/apimachinery v0.37.2
	sigs.k8s.io/controller-runtime v0.26.0
)

require (
	github.com/go-logr/logr v1.4.4 // indirect
	k8s.io/client-go v0.37.2 // indirect
)

replace example.com/platform => ../
