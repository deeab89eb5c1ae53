package controller

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	eventsv1client "k8s.io/client-go/kubernetes/typed/events/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// Bounds of the eventPoster, as client-go's events broadcaster has them.
const (
	// eventQueue: events waiting to be sent; more are dropped (and
	// logged), as the broadcaster drops when its channel is full.
	eventQueue = 1000
	// eventTries and eventRetryDelay: an event the API server refuses for
	// another reason than that it exists is sent again, this many times in
	// all, this far apart.
	eventTries      = 12
	eventRetryDelay = 10 * time.Second
)

// eventPoster is the operator's events.EventRecorder (ADR 0387). Each
// event is one POST of an events.k8s.io/v1 Event, sent in order by one
// goroutine from a bounded queue, then forgotten. client-go's broadcaster,
// which controller-runtime's recorder uses, keeps a copy of every event
// for 6 to 12 minutes to merge a repetition into a series: 1,000 Tenants
// provisioned left about 0.9 MB of live heap in that cache when memory is
// read, 60 s later. The operator posts an event on a transition only, so
// there is no repetition to merge; kubectl and the tests see the same
// events as before (single, no series).
type eventPoster struct {
	events     eventsv1client.EventsV1Interface
	scheme     *runtime.Scheme
	controller string
	instance   string
	queue      chan *eventsv1.Event
	log        logr.Logger
	retryDelay time.Duration
}

var _ events.EventRecorder = (*eventPoster)(nil)

// newEventPoster posts events reported by controller, on the manager's
// HTTP client.
func newEventPoster(cfg *rest.Config, h *http.Client, scheme *runtime.Scheme, controller string, log logr.Logger) (*eventPoster, error) {
	c, err := eventsv1client.NewForConfigAndClient(protobuf(cfg), h)
	if err != nil {
		return nil, fmt.Errorf("building the events/v1 client: %w", err)
	}
	// As client-go's recorder names the instance.
	host, _ := os.Hostname()
	return &eventPoster{events: c, scheme: scheme, controller: controller, instance: controller + "-" + host,
		queue: make(chan *eventsv1.Event, eventQueue), log: log, retryDelay: eventRetryDelay}, nil
}

// Eventf queues an event about regarding, built as client-go's recorder
// builds it; it never blocks.
func (p *eventPoster) Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	message := fmt.Sprintf(note, args...)
	ref, err := p.reference(regarding)
	if err != nil {
		p.log.Error(err, "event not reported: no reference to its object", "reason", reason, "message", message)
		return
	}
	if eventtype != corev1.EventTypeNormal && eventtype != corev1.EventTypeWarning {
		p.log.Error(nil, "event not reported: unsupported type", "type", eventtype, "reason", reason)
		return
	}
	var rel *corev1.ObjectReference
	if related != nil {
		if r, err := p.reference(related); err == nil {
			rel = r
		}
	}
	now := time.Now()
	namespace := ref.Namespace
	if namespace == "" {
		namespace = metav1.NamespaceDefault // where kubectl looks for a cluster-scoped object's events
	}
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: eventName(ref.Name, now), Namespace: namespace},
		EventTime:           metav1.NewMicroTime(now),
		ReportingController: p.controller,
		ReportingInstance:   p.instance,
		Action:              action,
		Reason:              reason,
		Regarding:           *ref,
		Related:             rel,
		Note:                message,
		Type:                eventtype,
	}
	select {
	case p.queue <- ev:
	default:
		p.log.Error(nil, "event dropped: the queue is full", "reason", reason, "object", ref.Name)
	}
}

// reference is the object's reference, its kind from the scheme (a typed
// object read from the API has no TypeMeta).
func (p *eventPoster) reference(obj runtime.Object) (*corev1.ObjectReference, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no metadata", obj)
	}
	gvk, err := apiutil.GVKForObject(obj, p.scheme)
	if err != nil {
		return nil, err
	}
	return &corev1.ObjectReference{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: m.GetNamespace(),
		Name: m.GetName(), UID: m.GetUID(), ResourceVersion: m.GetResourceVersion()}, nil
}

// eventName is client-go's: the object's name and the time in hex. A name
// longer than a DNS subdomain allows takes the time alone, under a prefix.
func eventName(object string, t time.Time) string {
	name := fmt.Sprintf("%s.%x", object, t.UnixNano())
	if len(name) > 253 {
		name = fmt.Sprintf("tenant-event.%x", t.UnixNano())
	}
	return name
}

// NeedLeaderElection: the poster runs on every replica; only the leader's
// reconciles queue events.
func (p *eventPoster) NeedLeaderElection() bool { return false }

// Start sends the queued events until ctx ends (a manager.Runnable).
func (p *eventPoster) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-p.queue:
			p.send(ctx, ev)
		}
	}
}

// send posts ev, again after a failure other than that it exists, up to
// eventTries times.
func (p *eventPoster) send(ctx context.Context, ev *eventsv1.Event) {
	for try := 1; ; try++ {
		_, err := p.events.Events(ev.Namespace).Create(ctx, ev, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return
		}
		if try == eventTries || ctx.Err() != nil {
			p.log.Error(err, "event not reported", "reason", ev.Reason, "object", ev.Regarding.Name, "tries", try)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(p.retryDelay):
		}
	}
}
