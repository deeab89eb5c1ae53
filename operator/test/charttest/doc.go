// Package charttest tests the Helm charts in charts/: helm lint and helm
// template for every values scenario, the values schema, server-side dry-run
// of the rendered manifests against a real kube-apiserver, and the RBAC
// proof, which runs the real tenant-operator binary as the chart's
// ServiceAccount with exactly the chart's rules (ADR-0042). Every test name
// contains "Chart" so that `make test-charts` (go test -run Chart) runs them.
//
// The tests find helm through $HELM (the Makefile sets it) or the newest
// bin/helm-v* of the repository, and the operator through $TENANT_OPERATOR
// or by building ./cmd/tenant-operator.
package charttest
