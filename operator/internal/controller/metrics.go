package controller

import (
	"context"
	"errors"
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
	reconcileDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kubetenant_reconcile_duration_seconds",
		Help:    "Duration of Tenant reconciles, by result (success or error).",
		Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"result"})

	// current is the cache the tenants collector reads: the latest manager
	// set up in this process (tests start several in turn).
	current      atomic.Pointer[client.Reader]
	registerOnce sync.Once
	registerErr  error
)

type metrics struct{ reader client.Reader }

func newMetrics(r client.Reader) *metrics { return &metrics{reader: r} }

func (m *metrics) register() error {
	current.Store(&m.reader)
	registerOnce.Do(func() {
		registerErr = errors.Join(
			ctrlmetrics.Registry.Register(reconcileDuration),
			ctrlmetrics.Registry.Register(tenantCollector{}),
		)
	})
	return registerErr
}

func (m *metrics) observe(d time.Duration, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	reconcileDuration.WithLabelValues(result).Observe(d.Seconds())
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
	var list v1alpha1.TenantList
	if err := (*r).List(ctx, &list); err != nil {
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
