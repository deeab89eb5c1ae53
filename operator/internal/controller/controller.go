// Package controller reconciles Tenants: it applies the desired children
// that package tenant computes with server-side apply, prunes what the spec
// no longer asks for, repairs drift, calls the optional external
// provisioner, applies the deletion policy behind a finalizer and reports
// through status conditions and a few deliberate events.
//
// It keeps no child object in memory (ADR 0101): a storeless watch per
// child kind turns someone else's edit or deletion into a reconcile of the
// owning Tenant, and the Tenant's status records what was applied (a hash
// of the desired objects, the UIDs of its namespaces, the last pruned
// generation, the calls made to the external provisioner), so that a
// reconcile with nothing to do makes no request at all.
package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubetenant/kubetenant/operator/api/v1alpha1"
	"github.com/kubetenant/kubetenant/operator/internal/provisioner"
)

// FieldManager is the server-side apply field manager of every write.
const FieldManager = "kubetenant-operator"

// Name is the controller's name, also the reporting controller of its events.
const Name = "tenant-operator"

// Event reasons.
const (
	EventProvisioned          = "Provisioned"
	EventProvisioningFailed   = "ProvisioningFailed"
	EventDeprovisioningFailed = "DeprovisioningFailed"
	// EventSelfServiceOverLimit: more self-service namespaces exist than
	// spec.selfService.maxNamespaces (concurrent creations); none deleted.
	EventSelfServiceOverLimit = "SelfServiceOverLimit"
	// EventAdmissionNotEnforced: the Tenant sets spec.selfService or
	// spec.rules and the admission policies that enforce them are not
	// installed (issue 38).
	EventAdmissionNotEnforced = "AdmissionNotEnforced"
)

// Defaults of Options.
const (
	DefaultResyncPeriod  = 10 * time.Minute
	DefaultMinRetryDelay = 2 * time.Second
	DefaultMaxRetryDelay = 5 * time.Minute
	DefaultRejectedRetry = time.Hour
	// DefaultMaxConcurrentApplies is the default of
	// Options.MaxConcurrentApplies (ADR 0259).
	DefaultMaxConcurrentApplies = 8
)

// Provisioner is the external system told about tenants; see package
// provisioner.
type Provisioner interface {
	Put(ctx context.Context, t provisioner.Tenant) error
	Delete(ctx context.Context, t provisioner.Ref) error
}

// Options configures the reconciler. Zero values take the defaults noted.
type Options struct {
	// Provisioner is nil when no external provisioner is configured.
	Provisioner Provisioner
	// ResyncPeriod is how often a Ready tenant is re-checked against its
	// recorded state (default 10m). A re-check with nothing changed makes
	// no request.
	ResyncPeriod time.Duration
	// MaxConcurrentReconciles bounds parallel reconciles (default 4).
	MaxConcurrentReconciles int
	// MaxConcurrentApplies bounds the writes one reconcile has in flight
	// (default 8, ADR 0259): at most MaxConcurrentReconciles times
	// MaxConcurrentApplies requests of the operator are in flight.
	MaxConcurrentApplies int
	// ListPageSize is the limit of each page of the LISTs that look for
	// objects violating changed rules (default 500, ADR 0249).
	ListPageSize int
	// MinRetryDelay and MaxRetryDelay bound the workqueue's exponential
	// backoff after a failed reconcile (defaults 2s and 5m), as Flux's
	// --min-retry-delay and --max-retry-delay do.
	MinRetryDelay, MaxRetryDelay time.Duration
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
	reader   client.Reader // uncached
	recorder events.EventRecorder
	opts     Options
	drift    *driftSet
	adopt    *adoptSet
	children *childWatch
	builtin  *builtin // protobuf clients of the built-in kinds (ADR 0354)
}

// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tenancy.kubetenant.io,resources=tenants/finalizers,verbs=update
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=bind
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
//
// The child kinds' rules are in kinds.go, next to the table.
// No customresourcedefinitions rule: controller-runtime resolves kinds by
// discovery, which every authenticated user may read. No escalate: the
// operator creates no Role; bind on clusterroles lets it bind admin, edit,
// view and the additionalRoleBindings' ClusterRoles without holding them.

// Setup registers the Tenant controller and the tenant metrics with mgr.
func Setup(mgr ctrl.Manager, opts Options) (*Reconciler, error) {
	return setup(mgr, opts, hooks{})
}

// hooks let tests observe the controller: wrap the reconciler it calls (to
// count reconciles) and the workqueue's rate limiter (to see backoff), and
// hear of each desired state the child watch computes.
type hooks struct {
	reconciler func(reconcile.Reconciler) reconcile.Reconciler
	limiter    func(workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimiter[reconcile.Request]
	desired    func(tenant string)
}

func setup(mgr ctrl.Manager, opts Options, h hooks) (*Reconciler, error) {
	if opts.ResyncPeriod <= 0 {
		opts.ResyncPeriod = DefaultResyncPeriod
	}
	if opts.MaxConcurrentReconciles <= 0 {
		opts.MaxConcurrentReconciles = 4
	}
	if opts.ListPageSize <= 0 {
		opts.ListPageSize = DefaultListPageSize
	}
	if opts.MaxConcurrentApplies <= 0 {
		opts.MaxConcurrentApplies = DefaultMaxConcurrentApplies
	}
	if opts.MinRetryDelay <= 0 {
		opts.MinRetryDelay = DefaultMinRetryDelay
	}
	if opts.MaxRetryDelay <= 0 {
		opts.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if opts.MaxRetryDelay < opts.MinRetryDelay {
		return nil, fmt.Errorf("max retry delay %s is shorter than min retry delay %s", opts.MaxRetryDelay, opts.MinRetryDelay)
	}
	if opts.RejectedRetry <= 0 {
		opts.RejectedRetry = DefaultRejectedRetry
	}
	r := &Reconciler{
		client: mgr.GetClient(),
		reader: mgr.GetAPIReader(),
		opts:   opts,
		drift:  newDriftSet(),
		adopt:  newAdoptSet(),
	}
	if err := registerMetrics(mgr.GetCache()); err != nil {
		return nil, err
	}
	poster, err := newEventPoster(mgr.GetConfig(), mgr.GetHTTPClient(), mgr.GetScheme(), Name, mgr.GetLogger().WithName("events"))
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(poster); err != nil {
		return nil, fmt.Errorf("adding the event poster: %w", err)
	}
	r.recorder = poster
	if r.builtin, err = newBuiltin(mgr.GetConfig(), mgr.GetHTTPClient()); err != nil {
		return nil, err
	}
	r.children = &childWatch{
		builtin: r.builtin,
		tenants: mgr.GetClient(),
		desired: newDesiredCache(desiredCacheSize, desiredCacheIdle),
		synced:  mgr.GetCache().WaitForCacheSync,
		drift:   r.drift,
		adopt:   r.adopt,
		log:     mgr.GetLogger().WithName("children"),
	}
	r.children.desired.onCompute = h.desired
	var rec reconcile.Reconciler = r
	if h.reconciler != nil {
		rec = h.reconciler(r)
	}
	limiter := workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](opts.MinRetryDelay, opts.MaxRetryDelay)
	if h.limiter != nil {
		limiter = h.limiter(limiter)
	}
	err = ctrl.NewControllerManagedBy(mgr).
		Named("tenant").
		For(&v1alpha1.Tenant{}, builder.WithPredicates(tenantChanged{})).
		WatchesRawSource(r.children).
		WithOptions(controller.Options{
			MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
			SkipNameValidation:      &opts.SkipNameValidation,
			RateLimiter:             limiter,
		}).
		Complete(rec)
	if err != nil {
		return nil, fmt.Errorf("building the tenant controller: %w", err)
	}
	return r, nil
}

// Reconcile brings one Tenant's children to the desired state. A failure
// is returned, so that the workqueue's rate limiter backs off; an
// optimistic-lock conflict (this reconcile worked from a stale cache) is
// retried quietly after the minimum retry delay.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	res, err := r.reconcile(ctx, req)
	if apierrors.IsConflict(err) {
		log.FromContext(ctx).V(1).Info("stale view of the tenant; retrying", "error", err.Error())
		return ctrl.Result{RequeueAfter: r.opts.MinRetryDelay}, nil
	}
	return res, err
}

func (r *Reconciler) reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var t v1alpha1.Tenant
	if err := r.client.Get(ctx, req.NamespacedName, &t); err != nil {
		if apierrors.IsNotFound(err) {
			r.drift.take(req.Name)
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("getting tenant %s: %w", req.Name, err)
	}
	ctx = log.IntoContext(ctx, log.FromContext(ctx).WithValues("tenant", t.Name, "generation", t.Generation))
	if t.Spec.Paused {
		return ctrl.Result{}, r.pause(ctx, &t)
	}
	if !t.DeletionTimestamp.IsZero() {
		return r.finalize(ctx, &t)
	}
	if !controllerutil.ContainsFinalizer(&t, v1alpha1.Finalizer) {
		controllerutil.AddFinalizer(&t, v1alpha1.Finalizer)
		patch, err := finalizersPatch(&t)
		if err != nil {
			return ctrl.Result{}, err
		}
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
	// Child events are ignored while paused: apply everything on resume.
	t.Status.AppliedHash = ""
	meta.SetStatusCondition(&t.Status.Conditions, metav1.Condition{
		Type: v1alpha1.ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: t.Generation,
		Reason: v1alpha1.ReasonPaused, Message: "spec.paused is true: the operator changes nothing for this tenant",
	})
	return r.writeStatus(ctx, old, t, false)
}

// finalizersPatch is the merge patch that client.MergeFromWithOptimisticLock
// computes when only t's finalizers changed (the list replaced, the
// resourceVersion a precondition), built without encoding the Tenant twice
// and diffing the two (issue 38: a creation burst did that for every
// Tenant).
func finalizersPatch(t *v1alpha1.Tenant) (client.Patch, error) {
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": t.Finalizers, "resourceVersion": t.ResourceVersion,
	}})
	if err != nil {
		return nil, fmt.Errorf("encoding the finalizers of tenant %s: %w", t.Name, err)
	}
	return client.RawPatch(types.MergePatchType, data), nil
}

// writeStatus writes t's status if it differs from old's, failing on a
// concurrent change so that events tied to a transition are posted once.
// The patch is built from the two statuses (statusPatch). The answer is
// decoded into t only when read is set (the caller writes the Tenant
// again and needs its resourceVersion); otherwise it is left unread, as a
// child's apply answer is (ADR 0354): decoding it, the whole Tenant in
// JSON with its managedFields, was the rest of the status write's cost
// (ADR 0375).
func (r *Reconciler) writeStatus(ctx context.Context, old, t *v1alpha1.Tenant, read bool) error {
	if equality.Semantic.DeepEqual(old.Status, t.Status) {
		return nil
	}
	data, err := statusPatch(old, t)
	if err != nil {
		return err
	}
	if read {
		err = r.client.Status().Patch(ctx, t, client.RawPatch(types.MergePatchType, data))
	} else {
		err = unread(ctx, r.builtin.tenancy.Patch(types.MergePatchType).Resource("tenants").Name(t.Name).SubResource("status").Body(data))
	}
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile: nothing left to report on
		}
		return fmt.Errorf("writing status of tenant %s: %w", t.Name, err)
	}
	return nil
}

// ErrConflict marks a namespace that exists and does not belong to the tenant.
var ErrConflict = errors.New("namespace exists and does not belong to this tenant")

// errStale marks a reconcile whose cached Tenant is older than the API
// server's; it is retried quietly, as an optimistic-lock conflict is.
var errStale = apierrors.NewConflict(v1alpha1.GroupVersion.WithResource("tenants").GroupResource(), "", errors.New("the cached tenant is older than the API server's"))

// ownedBy reports whether obj's controller reference is the Tenant with
// uid. The controller reference, not the label, decides: a label anyone can
// set, a reference to the Tenant's UID only someone who means to hand the
// object over.
func ownedBy(obj metav1.Object, uid string) bool {
	ref := metav1.GetControllerOf(obj)
	return ref != nil && string(ref.UID) == uid
}
