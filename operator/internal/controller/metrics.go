package controller

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
)

// phases are every value the kubetenant_tenants gauge reports, so a phase
// with no tenants shows 0 rather than disappearing. A Tenant the operator
// has not yet seen counts as Pending.
var phases = []v1alpha1.Phase{
	v1alpha1.PhasePending, v1alpha1.PhaseProvisioning, v1alpha1.PhaseReady,
	v1alpha1.PhaseFailed, v1alpha1.PhasePaused, v1alpha1.PhaseTerminating,
}

var (
	tenantsDesc = prometheus.NewDesc("kubetenant_tenants",
		"Number of Tenants by phase.", []string{"phase"}, nil)
	// current is the cache the tenants collector reads: the latest manager
	// set up in this process (tests start several in turn).
	current      atomic.Pointer[client.Reader]
	registerOnce sync.Once
	registerErr  error
)

// registerMetrics points the kubetenant_tenants collector at r and
// registers it once per process. Reconcile counts, errors and durations are
// controller-runtime's own (controller_runtime_reconcile_total,
// controller_runtime_reconcile_errors_total,
// controller_runtime_reconcile_time_seconds).
func registerMetrics(r client.Reader) error {
	current.Store(&r)
	registerOnce.Do(func() {
		registerErr = ctrlmetrics.Registry.Register(tenantCollector{})
	})
	return registerErr
}

// tenantCollector counts Tenants by phase from the cache at scrape time, so
// the gauge is exact after a restart and never holds a deleted tenant.
type tenantCollector struct{}

func (tenantCollector) Describe(ch chan<- *prometheus.Desc) { ch <- tenantsDesc }

func (tenantCollector) Collect(ch chan<- prometheus.Metric) {
	r := current.Load()
	if r == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Read only: the cached Tenants, not a copy of all of them on every
	// scrape (ADR 0303).
	var list v1alpha1.TenantList
	if err := (*r).List(ctx, &list, client.UnsafeDisableDeepCopy); err != nil {
		return // cache not started yet: report nothing rather than zeros
	}
	counts := map[v1alpha1.Phase]int{}
	for _, t := range list.Items {
		p := t.Status.Phase
		if p == "" {
			p = v1alpha1.PhasePending
		}
		counts[p]++
	}
	for _, p := range phases {
		ch <- prometheus.MustNewConstMetric(tenantsDesc, prometheus.GaugeValue, float64(counts[p]), string(p))
	}
}
