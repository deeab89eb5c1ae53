// Command rbacvalues writes the operator's generated ClusterRole rules into
// the rbac.rules block of the tenant-operator chart's values.yaml. `make
// generate` runs it after controller-gen; `make verify` then fails on drift.
//
//	go run ./test/charttest/cmd/rbacvalues -role config/rbac/role.yaml -values ../charts/tenant-operator/values.yaml
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/kubetenant/kubetenant/operator/test/charttest/rbacvalues"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "rbacvalues:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("rbacvalues", flag.ContinueOnError)
	role := fs.String("role", "config/rbac/role.yaml", "ClusterRole written by controller-gen")
	values := fs.String("values", "../charts/tenant-operator/values.yaml", "chart values.yaml to update in place")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := os.ReadFile(*role)
	if err != nil {
		return fmt.Errorf("reading role: %w", err)
	}
	v, err := os.ReadFile(*values)
	if err != nil {
		return fmt.Errorf("reading values: %w", err)
	}
	out, err := rbacvalues.Update(r, v, *values)
	if err != nil {
		return fmt.Errorf("%s: %w", *role, err)
	}
	if bytes.Equal(out, v) {
		return nil
	}
	if err := os.WriteFile(*values, out, 0o644); err != nil {
		return fmt.Errorf("writing values: %w", err)
	}
	return nil
}
