package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/test/soak"
)

// bench prints the operator's figures for `make bench`. One control plane
// serves three phases:
//
//  1. the operator with --bench-small Tenants, Ready and at rest;
//     those Tenants are then deleted and the operator stopped;
//  2. a plain client applying the objects of --bench-large Tenants
//     (without owner reference or tenant label), --workers at a time;
//  3. --bench-large Tenants created while no operator runs, then a fresh
//     operator started: the time until all are Ready is the cold start;
//     then the memory at rest.
//
// The plain client goes first, so the operator meets the larger database:
// the ratio errs against the operator.
func bench(ctx context.Context, o options) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	wall := time.Now()
	cp, err := startPlane(ctx, o)
	if err != nil {
		return err
	}
	defer stopPlane(cp)
	c, err := soak.NewClient(cp.Config)
	if err != nil {
		return err
	}

	// 1. At rest with the small set.
	op, err := soak.StartOperator(ctx, o.operator, cp.Kubeconfig, filepath.Join(o.dir, "bench-operator-small.log"))
	if err != nil {
		return err
	}
	defer op.Stop()
	small := soak.NewDriver(c, "small", o.benchSmall, os.Stderr)
	if err := small.Create(ctx, o.workers); err != nil {
		return err
	}
	if err := small.WaitReady(ctx, 15*time.Minute); err != nil {
		return err
	}
	restSmall, err := atRest(ctx, op, o.settle)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "soak: bench: %d Tenants at rest: %s\n", o.benchSmall, restSmall)
	if err := deleteTenants(ctx, c, small.Names, 10*time.Minute); err != nil {
		return err
	}
	op.Stop()

	// 2. The plain client.
	plainNames := make([]string, o.benchLarge)
	for i := range plainNames {
		plainNames[i] = soak.Name("plain", i)
	}
	plainTime, applies, err := soak.Plain(ctx, c, plainNames, o.workers)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "soak: bench: plain client: %d applies in %s (%.0f/s)\n", applies, plainTime.Round(time.Millisecond), float64(applies)/plainTime.Seconds())

	// 3. Cold start with the large set, then at rest.
	large := soak.NewDriver(c, "large", o.benchLarge, os.Stderr)
	created := time.Now()
	if err := large.Create(ctx, o.workers); err != nil {
		return err
	}
	createTime := time.Since(created)
	coldStart := time.Now()
	op, err = soak.StartOperator(ctx, o.operator, cp.Kubeconfig, filepath.Join(o.dir, "bench-operator-large.log"))
	if err != nil {
		return err
	}
	defer op.Stop()
	if err := large.WaitReady(ctx, 30*time.Minute); err != nil {
		return err
	}
	coldTime := time.Since(coldStart)
	fmt.Fprintf(os.Stderr, "soak: bench: %d Tenants Ready %s after the operator started\n", o.benchLarge, coldTime.Round(time.Millisecond))
	restLarge, err := atRest(ctx, op, o.settle)
	if err != nil {
		return err
	}

	mib := func(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }
	fmt.Printf("\n### tenant-operator (make bench, %d Tenants of 3 namespaces, %d objects each)\n\n", o.benchLarge, len(soak.PlainObjects("x")))
	fmt.Printf("| Figure | Value |\n|---|---|\n")
	fmt.Printf("| RSS at rest, %d Tenants | %s |\n", o.benchSmall, mib(restSmall.RSS))
	fmt.Printf("| Go heap in use at rest, %d Tenants | %s |\n", o.benchSmall, mib(restSmall.HeapInuse))
	fmt.Printf("| RSS at rest, %d Tenants | %s |\n", o.benchLarge, mib(restLarge.RSS))
	fmt.Printf("| Go heap in use at rest, %d Tenants | %s |\n", o.benchLarge, mib(restLarge.HeapInuse))
	fmt.Printf("| %d Tenants Ready from a cold start | %s |\n", o.benchLarge, coldTime.Round(100*time.Millisecond))
	fmt.Printf("| Plain client, same %d server-side applies | %s (%.0f applies/s) |\n", applies, plainTime.Round(100*time.Millisecond), float64(applies)/plainTime.Seconds())
	fmt.Printf("| Ratio operator / plain client | %.2f |\n", coldTime.Seconds()/plainTime.Seconds())
	fmt.Printf("| Creating the %d Tenant objects (%d writers) | %s |\n", o.benchLarge, o.workers, createTime.Round(100*time.Millisecond))
	fmt.Printf("\nwall time %s\n", time.Since(wall).Round(time.Second))
	return nil
}

// atRest waits settle, then returns the median of ten readings a second
// apart.
func atRest(ctx context.Context, op *soak.Operator, settle time.Duration) (soak.Memory, error) {
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return soak.Memory{}, ctx.Err()
	}
	var rss, heap []float64
	for range 10 {
		m, err := op.Memory(ctx)
		if err != nil {
			return soak.Memory{}, err
		}
		rss, heap = append(rss, m.RSS), append(heap, m.HeapInuse)
		select {
		case <-time.After(time.Second):
		case <-ctx.Done():
			return soak.Memory{}, ctx.Err()
		}
	}
	slices.Sort(rss)
	slices.Sort(heap)
	return soak.Memory{RSS: rss[len(rss)/2], HeapInuse: heap[len(heap)/2]}, nil
}

// deleteTenants deletes the named Tenants and waits until they are gone
// (their namespaces deleted) or timeout passes.
func deleteTenants(ctx context.Context, c client.Client, names []string, timeout time.Duration) error {
	for _, n := range names {
		t := &v1alpha1.Tenant{}
		t.Name = n
		if err := client.IgnoreNotFound(c.Delete(ctx, t)); err != nil {
			return fmt.Errorf("deleting Tenant %s: %w", n, err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	for {
		var list v1alpha1.TenantList
		left := 0
		if err := c.List(ctx, &list); err == nil {
			for _, t := range list.Items {
				if want[t.Name] {
					left++
				}
			}
			if left == 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d Tenants to go (%d left): %w", len(names), left, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
