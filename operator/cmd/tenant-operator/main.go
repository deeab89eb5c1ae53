// Command tenant-operator provisions tenants from cluster-scoped Tenant
// resources: namespaces, owners' access, quotas, limits, network isolation
// and, optionally, an external system. See docs/operator.md for the
// flags, and -h for them and the exit codes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/controller"
	"github.com/kubetenant/kubetenant/operator/internal/metricsauth"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
	"github.com/kubetenant/kubetenant/operator/internal/version"
)

// versionOut is where --version prints (a variable for tests).
var versionOut io.Writer = os.Stdout

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(exitCode(run(ctx, os.Args[1:], os.Getenv, os.Stderr), os.Stderr))
}

// exitStatus is the help's account of the exit codes exitCode gives.
const exitStatus = `Exit status:
  0  stopped cleanly on SIGTERM or SIGINT; -h, --help and --version
  1  could not start (kubeconfig, API server, the provisioner's URL or CA file) or stopped on an error
  2  a usage error: an unknown flag, a bad value or argument, flags that need one another
`

// usageError is a mistake in the command line.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef is a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// exitCode prints err as the process's last word and returns its exit
// code (see exitStatus). A usage error is one line and a pointer to
// --help, as Go's tools and kubectl print, never the whole usage.
func exitCode(err error, stderr io.Writer) int {
	var u usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "tenant-operator: %v\nRun 'tenant-operator --help' for usage.\n", err)
		return 2
	default:
		fmt.Fprintf(stderr, "tenant-operator: %v\n", err)
		return 1
	}
}

// The metrics endpoint's filter asks the API server to authenticate and
// authorize each scrape (--metrics-secure).
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create

// flagSet reports whether the named flag was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// lockedWriter serializes Write calls to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// DefaultGOGC is the collector's target the operator sets when GOGC is not
// in its environment (ADR 0279): the heap may grow to 1.25 times the live
// heap between collections instead of twice (ADR 0279). The live heap is small (the
// Tenant cache; children are never cached, ADR 0101), so collecting more
// often costs little CPU and keeps the resident memory near the live heap.
const DefaultGOGC = 25

// gcPercent sets DefaultGOGC unless GOGC is set, and returns the target in
// force ("off" or a percentage).
func gcPercent(getenv func(string) string) string {
	return runtimeDefault(getenv, "GOGC", DefaultGOGC, debug.SetGCPercent)
}

// runtimeDefault returns the runtime setting the environment variable
// name gives, left to the runtime, or sets def through set and returns it.
func runtimeDefault(getenv func(string) string, name string, def int, set func(int) int) string {
	if v := getenv(name); v != "" {
		return v
	}
	set(def)
	return fmt.Sprint(def)
}

// DefaultGOMAXPROCS is how many threads run the operator's Go code at once
// when GOMAXPROCS is not in its environment (ADR 0398). The operator waits
// on the API server most of the time: one processor provisions as fast as
// the runtime's default of one per core, and spends less CPU on the
// collector's idle workers and on handing goroutines between processors.
const DefaultGOMAXPROCS = 1

// maxProcs sets DefaultGOMAXPROCS unless GOMAXPROCS is set, and returns
// the value in force.
func maxProcs(getenv func(string) string) string {
	return runtimeDefault(getenv, "GOMAXPROCS", DefaultGOMAXPROCS, goruntime.GOMAXPROCS)
}

// uncompressed serves /metrics without gzip or zstd (ADR 0278): each
// compressed scrape holds a compressor of about 0.8 MiB in the handler's
// pool, more than the operator's own metrics weigh (a few tens of KiB a
// scrape, inside the cluster).
func uncompressed(o *promhttp.HandlerOpts) { o.DisableCompression = true }

// run parses flags, builds the manager and runs it until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("tenant-operator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config.RegisterFlags(fs) // --kubeconfig, controller-runtime's own flag
	var (
		metricsAddr   = fs.String("metrics-bind-address", ":8080", "Address of the Prometheus metrics endpoint; 0 disables it. Default :8080, or :8443 with --metrics-secure.")
		metricsSecure = fs.Bool("metrics-secure", false, "Serve metrics over HTTPS, only to callers the API server authenticates (TokenReview) and authorizes for GET /metrics (SubjectAccessReview).")
		pprofAddr     = fs.String("pprof-bind-address", "0", "Address of Go's /debug/pprof/ profiles (heap, CPU, goroutines), e.g. 127.0.0.1:6060; 0 disables it. Never expose it outside the pod.")
		probeAddr     = fs.String("health-probe-bind-address", ":8081", "Address of /healthz and /readyz; 0 disables them.")
		leaderElect   = fs.Bool("leader-elect", false, "Elect a leader so that only one replica reconciles.")
		leaderNS      = fs.String("leader-election-namespace", "", "Namespace of the leader-election Lease (default: $POD_NAMESPACE, else the pod's namespace in-cluster).")
		leaderID      = fs.String("leader-election-id", "tenant-operator.tenancy.kubetenant.io", "Name of the leader-election Lease.")
		concurrency   = fs.Int("max-concurrent-reconciles", 4, "Tenants reconciled in parallel.")
		applies       = fs.Int("max-concurrent-applies", controller.DefaultMaxConcurrentApplies, "Writes one reconcile has in flight: a Tenant's objects are applied concurrently, at most this many at a time.")
		resync        = fs.Duration("resync-period", controller.DefaultResyncPeriod, "How often a Ready tenant is re-checked against its recorded state (no request when nothing changed).")
		minRetry      = fs.Duration("min-retry-delay", controller.DefaultMinRetryDelay, "Delay before the first retry of a failed reconcile; it doubles on each failure.")
		maxRetry      = fs.Duration("max-retry-delay", controller.DefaultMaxRetryDelay, "Longest delay between retries of a failing reconcile.")
		provURL       = fs.String("provisioner-url", "", "Base URL of the external provisioner (PUT/DELETE {url}/tenants/{name}); empty disables it.")
		provTokenFile = fs.String("provisioner-token-file", "", "File holding the provisioner's bearer token, re-read on every request.")
		provTimeout   = fs.Duration("provisioner-timeout", 10*time.Second, "Timeout of one provisioner request.")
		showVersion   = fs.Bool("version", false, "Print the version, commit and commit date, and exit.")
		provCAFile    = fs.String("provisioner-ca-file", "", "PEM file of CA certificates to trust, besides the system's, for an https provisioner.")
		zapOpts       = zap.Options{Development: false}
	)
	zapOpts.BindFlags(fs)
	// The flag package prints the whole usage after a parse error: it is
	// silenced, and the usage printed only when asked for.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stderr)
		fmt.Fprint(stderr, "Usage: tenant-operator [flags]\n\n"+
			"Provisions tenants from cluster-scoped Tenant resources: namespaces, owners' access, quotas,\n"+
			"limits, network isolation and, optionally, an external system (docs/operator.md).\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+exitStatus)
		return err
	} else if err != nil {
		return usageError{err}
	}
	fs.SetOutput(stderr)
	info := version.Get()
	if *showVersion {
		_, err := fmt.Fprintf(versionOut, "tenant-operator %s\n", info)
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	if *concurrency < 1 {
		return usagef("--max-concurrent-reconciles must be at least 1, got %d", *concurrency)
	}
	if *applies < 1 {
		return usagef("--max-concurrent-applies must be at least 1, got %d", *applies)
	}
	if *resync <= 0 {
		return usagef("--resync-period must be positive, got %s", *resync)
	}
	if *minRetry <= 0 || *maxRetry < *minRetry {
		return usagef("--min-retry-delay (%s) must be positive and at most --max-retry-delay (%s)", *minRetry, *maxRetry)
	}
	// Every controller goroutine logs: writes to stderr are serialized, as
	// an *os.File needs no lock but any other writer does.
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(&lockedWriter{w: stderr})))
	log := ctrl.Log.WithName("setup")
	gogc := gcPercent(getenv)
	procs := maxProcs(getenv)

	// Without a namespace, controller-runtime reads the pod's own from its
	// service account in-cluster; out of cluster it asks for the flag.
	if *leaderNS == "" {
		*leaderNS = getenv("POD_NAMESPACE")
	}

	var prov controller.Provisioner
	if *provURL != "" {
		if httpsURL(*provURL) {
			useFallbackRoots()
		}
		var opts []provisioner.Option
		if *provCAFile != "" {
			opts = append(opts, provisioner.WithCAFile(*provCAFile))
		}
		c, err := provisioner.New(*provURL, *provTokenFile, *provTimeout, opts...)
		if err != nil {
			return err
		}
		prov = c
	} else if *provTokenFile != "" {
		return usagef("--provisioner-token-file needs --provisioner-url")
	} else if *provCAFile != "" {
		return usagef("--provisioner-ca-file needs --provisioner-url")
	}

	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("loading kubeconfig: %w", err)
	}
	if apiServerUsesSystemRoots(cfg) {
		useFallbackRoots()
	}
	// Responses uncompressed (ADR 0303): the API server would gzip every
	// watch stream, each holding a decompressor here, for a client in the
	// same cluster.
	cfg.DisableCompression = true
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return fmt.Errorf("building scheme: %w", err)
	}
	metricsOpts := metricsserver.Options{BindAddress: *metricsAddr, HandlerOpts: []func(*promhttp.HandlerOpts){uncompressed}}
	if *metricsSecure {
		// As kubebuilder scaffolds: HTTPS with a self-signed certificate,
		// every request authenticated and authorized through the API server
		// (TokenReview, SubjectAccessReview; ADR 0108).
		metricsOpts.SecureServing = true
		metricsOpts.FilterProvider = metricsauth.Provider
		if !flagSet(fs, "metrics-bind-address") {
			metricsOpts.BindAddress = ":8443"
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         controller.CacheOptions(),
		Client:                        controller.ClientOptions(),
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        *probeAddr,
		PprofBindAddress:              *pprofAddr,
		LeaderElection:                *leaderElect,
		LeaderElectionID:              *leaderID,
		LeaderElectionNamespace:       *leaderNS,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if _, err := controller.Setup(mgr, controller.Options{
		Provisioner:             prov,
		ResyncPeriod:            *resync,
		MaxConcurrentReconciles: *concurrency,
		MaxConcurrentApplies:    *applies,
		MinRetryDelay:           *minRetry,
		MaxRetryDelay:           *maxRetry,
	}); err != nil {
		return err
	}
	if err := registerBuildInfo(metrics.Registry, info); err != nil {
		return fmt.Errorf("registering kubetenant_build_info: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return fmt.Errorf("adding health check: %w", err)
	}
	if err := mgr.AddReadyzCheck("cache", func(r *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(r.Context()) {
			return errors.New("cache not synced")
		}
		return nil
	}); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	apiCheck, err := apiServerCheck(cfg)
	if err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("apiserver", apiCheck); err != nil {
		return fmt.Errorf("adding readiness check: %w", err)
	}
	log.Info("starting", "version", info.Version, "commit", info.Commit, "commitDate", info.Date,
		"metrics", metricsOpts.BindAddress, "metricsSecure", *metricsSecure, "probes", *probeAddr, "leaderElect", *leaderElect,
		"maxConcurrentReconciles", *concurrency, "maxConcurrentApplies", *applies, "gogc", gogc, "gomaxprocs", procs, "resyncPeriod", resync.String(),
		"minRetryDelay", minRetry.String(), "maxRetryDelay", maxRetry.String(), "provisioner", *provURL != "")
	if err := mgr.Start(ctx); err != nil {
		return fmt.Errorf("running manager: %w", err)
	}
	return nil
}
