// Command controlplane starts a bare test control plane (etcd and
// kube-apiserver from bin/k8s, package controlplane) for tests outside the
// operator module, which cannot import the harness: pinbot's tests of the
// pod source start it as a child (its path in $CONTROLPLANE, which `make
// test` sets). It writes an administrator's kubeconfig to --kubeconfig once
// the API server answers, prints "ready" on stdout, and runs until SIGTERM,
// SIGINT or its standard input closes (so a test that dies takes it along),
// then stops everything it started.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/kubetenant/kubetenant/operator/test/controlplane"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "controlplane: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	fs := flag.NewFlagSet("controlplane", flag.ContinueOnError)
	assets := fs.String("assets", "", "folder of etcd and kube-apiserver (default $KUBEBUILDER_ASSETS, else bin/k8s)")
	kubeconfig := fs.String("kubeconfig", "", "file to write the administrator's kubeconfig to (required)")
	dir := fs.String("dir", "", "folder for the processes' files and logs (default: a temporary folder, removed at the end)")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if *kubeconfig == "" || fs.NArg() > 0 {
		return fmt.Errorf("usage: controlplane --kubeconfig FILE [--assets DIR] [--dir DIR]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	cp, err := controlplane.Start(startCtx, controlplane.Options{AssetsDir: *assets, Dir: *dir})
	cancel()
	if err != nil {
		return err
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "controlplane: %v\n", err)
		}
	}()
	b, err := os.ReadFile(cp.Kubeconfig)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*kubeconfig, b, 0o600); err != nil {
		return fmt.Errorf("writing the kubeconfig: %w", err)
	}
	fmt.Println("ready")
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	select {
	case <-ctx.Done():
	case <-stdinClosed:
	}
	return nil
}
