// Package controller reconciles Tenants: it applies the desired children
// that package tenant computes with server-side apply, prunes what the spec
// no longer asks for, repairs drift, calls the optional external
// provisioner, applies the deletion policy behind a finalizer and reports
// through status conditions and a few deliberate events.
package controller

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
	"github.com/kubetenant/kubetenant/operator/internal/tenant"
)

// conflictRetry is the delay before retrying a reconcile whose write lost
// an optimistic-concurrency race.
const conflictRetry = 200 * time.Millisecond

// FieldManager is the server-side apply field manager of every write.
const FieldManager = "kubetenant-operator"

// Name is the controller's name, also the reporting controller of its events.
const Name = "tenant-operator"

// Event reasons.
const (
	EventProvisioned          = "Provisioned"
	EventProvisioningFailed   = "ProvisioningFailed"
	EventDeprovisioningFailed = "DeprovisioningFailed"
)

// Provisioner is the external system told about tenants; see package
// provisioner.
type Provisioner interface {
	Put(ctx context.Context, t provisioner.Tenant) error
	Delete(ctx context.Context, name string) error
}

// Options configures the reconciler. Zero values take the defaults noted.
type Options struct {
	// Provisioner is nil when no external provisioner is configured.
	Provisioner Provisioner
	// ResyncPeriod is how often a Ready tenant is re-checked (default 10m).
	ResyncPeriod time.Duration
	// MaxConcurrentReconciles bounds parallel reconciles (default 4).
	MaxConcurrentReconciles int
	// RetryBase and RetryMax bound the exponential backoff after a
	// temporary failure (defaults 2s and 5m).
	RetryBase, RetryMax time.Duration
	// RejectedRetry is how long an external rejection of an unchanged
	// tenant stands before it is tried again (default 1h).
	RejectedRetry time.Duration
	// SkipNameValidation allows several managers in one process, as tests
	// that restart the operator need.
	SkipNameValidation bool
}

// Reconciler reconciles Tenant objects.
type Reconciler struct {
	client   client.Client
	reader   client.Reader // uncached, for namespaces outside the cache
	recorder events.EventRecorder
	opts     Options
	metrics  *metrics

	mu       sync.Mutex
	failures map[string]int // by tenant name
	rejected map[string]rejection
	accepted map[string]acceptance // external PUTs that succeeded, until status says so
	released map[string]types.UID  // external DELETEs that succeeded, until the Tenant is gone
}

// acceptance remembers an accepted PUT so that a reconcile working from a
// cache that has not yet seen the status write does not PUT again.
type acceptance struct {
	uid        types.UID
	generation int64
}

type rejection struct {
	uid        types.UID
	generation int64
	at         time.Time
	message    string
}

// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=networkpolicies,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=bind
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
//
// No customresourcedefinitions rule: controller-runtime resolves kinds by
// discovery, which every authenticated user may read. No escalate: the
// operator creates no Role; bind on clusterroles lets it bind admin, edit,
// view and the additionalRoleBindings' ClusterRoles without holding them.

// Setup registers the Tenant controller and the tenant metrics with mgr.
func Setup(mgr ctrl.Manager, opts Options) (*Reconciler, error) {
	if opts.ResyncPeriod <= 0 {
		opts.ResyncPeriod = 10 * time.Minute
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 4
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = 2 * time.Second
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 5 * time.Minute
	}
	if opts.RejectedRetry <= 0 {
		opts.RejectedRetry = time.Hour
	}
	r := &Reconciler{
		client:   mgr.GetClient(),
		reader:   mgr.GetAPIReader(),
		recorder: mgr.GetEventRecorder(Name),
		opts:     opts,
		metrics:  newMetrics(mgr.GetCache()),
		failures: map[string]int{},
		rejected: map[string]rejection{},
		accepted: map[string]acceptance{},
		released: map[string]types.UID{},
	}
	if err := r.metrics.register(); err != nil {
		return nil, err
	}
	owned := builder.WithPredicates(childChanged{})
	err := ctrl.NewControllerManagedBy(mgr).
		Named("tenant").
		For(&v1alpha1.Tenant{}, builder.WithPredicates(tenantChanged{})).
		Owns(&corev1.Namespace{}, owned).
		Owns(&rbacv1.RoleBinding{}, owned).
		Owns(&corev1.ResourceQuota{}, owned).
		Owns(&corev1.LimitRange{}, owned).
		Owns(&networkingv1.NetworkPolicy{}, owned).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
			SkipNameValidation:      &opts.SkipNameValidation,
		}).
		Complete(r)
	if err != nil {
		return nil, fmt.Errorf("building the tenant controller: %w", err)
	}
	return r, nil
}

// Reconcile brings one Tenant's children to the desired state.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	start := time.Now()
	defer func() {
		// A conflict means this reconcile worked from a stale cache; the
		// watch event of the newer version is on its way. Retry quietly.
		if apierrors.IsConflict(err) {
			res, err = ctrl.Result{RequeueAfter: conflictRetry}, nil
		}
		r.metrics.observe(time.Since(start), err)
	}()

	var t v1alpha1.Tenant
	if err := r.client.Get(ctx, req.NamespacedName, &t); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting tenant %s: %w", req.Name, err)
	}
	if t.Spec.Paused {
		return ctrl.Result{}, r.pause(ctx, &t)
	}
	if !t.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &t)
	}
	if !controllerutil.ContainsFinalizer(&t, v1alpha1.Finalizer) {
		patch := client.MergeFromWithOptions(t.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(&t, v1alpha1.Finalizer)
		if err := r.client.Patch(ctx, &t, patch); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer to tenant %s: %w", t.Name, err)
		}
	}
	return r.provision(ctx, &t)
}

// pause records that nothing is being changed.
func (r *Reconciler) pause(ctx context.Context, t *v1alpha1.Tenant) error {
	old := t.DeepCopy()
	t.Status.Phase = v1alpha1.PhasePaused
	t.Status.ObservedGeneration = t.Generation
	meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: t.Generation,
		Reason: tenant.ReasonPaused, Message: "spec.paused is true: the operator changes nothing for this tenant",
	})
	return r.writeStatus(ctx, old, t)
}

// writeStatus writes t's status if it differs from old's, failing on a
// concurrent change so that events tied to a transition are posted once.
func (r *Reconciler) writeStatus(ctx context.Context, old, t *v1alpha1.Tenant) error {
	if equality.Semantic.DeepEqual(old.Status, t.Status) {
		return nil
	}
	if err := r.client.Status().Patch(ctx, t, client.MergeFromWithOptions(old, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile: nothing left to report on
		}
		return fmt.Errorf("writing status of tenant %s: %w", t.Name, err)
	}
	return nil
}

// backoff returns the delay before retrying a tenant that failed again.
func (r *Reconciler) backoff(name string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.failures[name]
	r.failures[name] = n + 1
	d := time.Duration(float64(r.opts.RetryBase) * math.Pow(2, float64(min(n, 30))))
	return min(d, r.opts.RetryMax)
}

func (r *Reconciler) succeeded(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, name)
}

func (r *Reconciler) forget(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, name)
	delete(r.rejected, name)
	delete(r.accepted, name)
	delete(r.released, name)
}

// ErrConflict marks a namespace that exists and does not belong to the tenant.
var ErrConflict = errors.New("namespace exists and does not belong to this tenant")

// ownedBy reports whether t controls obj. The controller reference, not
// the label, decides: a label anyone can set, a reference to the Tenant's
// UID only someone who means to hand the object over.
func ownedBy(obj metav1.Object, t *v1alpha1.Tenant) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && ref.UID == t.UID
}

// logger returns the request logger with the tenant attached.
func logger(ctx context.Context, t *v1alpha1.Tenant) context.Context {
	return log.IntoContext(ctx, log.FromContext(ctx).WithValues("tenant", t.Name, "generation", t.Generation))
}
