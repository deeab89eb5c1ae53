package main

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubetenant/kubetenant/operator/internal/version"
)

// registerBuildInfo exports kubetenant_build_info, a constant 1 whose labels
// name the build, the way Prometheus' own *_build_info series do; dashboards
// join on it to say which version a replica runs.
func registerBuildInfo(reg prometheus.Registerer, info version.Info) error {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "kubetenant_build_info",
		Help: "A metric with a constant '1' value labelled by the version, commit, commit date and Go version tenant-operator was built from.",
		ConstLabels: prometheus.Labels{
			"version": info.Version, "commit": info.Commit, "date": info.Date, "goversion": info.GoVersion,
		},
	})
	g.Set(1)
	if err := reg.Register(g); err != nil {
		// A second run in one process (tests) finds the same series.
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			return nil
		}
		return err
	}
	return nil
}
