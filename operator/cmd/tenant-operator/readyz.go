package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// apiServerCheckTimeout keeps the check inside kubelet's default probe
// timeout (1 s).
const apiServerCheckTimeout = 800 * time.Millisecond

// apiServerCheck is a readiness check that asks the API server's own
// /readyz (readable by every client, ClusterRole system:public-info-viewer)
// through the operator's connection: while the operator cannot reach the
// API server (a partition, the API server down), its /readyz says so
// instead of reporting the caches it synced before (ADR 0247). One request
// per probe.
func apiServerCheck(cfg *rest.Config) (healthz.Checker, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the API server check's client: %w", err)
	}
	return func(r *http.Request) error {
		ctx, cancel := context.WithTimeout(r.Context(), apiServerCheckTimeout)
		defer cancel()
		if err := dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
			return fmt.Errorf("kube-apiserver unreachable or not ready: %w", err)
		}
		return nil
	}, nil
}
