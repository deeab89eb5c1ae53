// Package metricsauth lets only callers the API server authenticates and
// authorizes read the operator's metrics: a TokenReview for the bearer
// token, then a SubjectAccessReview for the request's verb on its
// non-resource path, as kubebuilder's scaffold does with controller-runtime's
// filters.WithAuthenticationAndAuthorization. It does the same two reviews
// with client-go alone, without k8s.io/apiserver, whose module graph made
// the operator's binary 61 % larger and its idle RSS about 19 MiB higher
// (ADR 0108).
package metricsauth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	authnclient "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authzclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The cache lifetimes and the retry of controller-runtime's filter, so that
// the switch changes no behaviour a scraper can see.
const (
	tokenTTL   = time.Minute     // an authenticated token's user
	allowTTL   = 5 * time.Minute // an allowed (user, verb, path)
	denyTTL    = 30 * time.Second
	reviewTime = 10 * time.Second // one review request
	maxEntries = 1024             // per cache; full means expired entries go, then all
)

var backoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// Provider is a metricsserver.Options.FilterProvider.
func Provider(cfg *rest.Config, hc *http.Client) (metricsserver.Filter, error) {
	r, err := clientReviewer(cfg, hc, time.Now)
	if err != nil {
		return nil, err
	}
	return r.filter, nil
}

// clientReviewer reviews through the API server cfg names, over hc.
func clientReviewer(cfg *rest.Config, hc *http.Client, now func() time.Time) (*reviewer, error) {
	authn, err := authnclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication client: %w", err)
	}
	authz, err := authzclient.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("metrics authorization client: %w", err)
	}
	return newReviewer(authn.TokenReviews(), authz.SubjectAccessReviews(), now), nil
}

// reviewer asks the API server and remembers its answers for a while.
type reviewer struct {
	tokens tokenReviews
	access accessReviews
	now    func() time.Time
	users  cache[authnv1.UserInfo] // by the token's SHA-256, never the token
	allows cache[bool]             // by user, groups, verb and path
}

type tokenReviews interface {
	Create(context.Context, *authnv1.TokenReview, metav1.CreateOptions) (*authnv1.TokenReview, error)
}

type accessReviews interface {
	Create(context.Context, *authzv1.SubjectAccessReview, metav1.CreateOptions) (*authzv1.SubjectAccessReview, error)
}

func newReviewer(t tokenReviews, a accessReviews, now func() time.Time) *reviewer {
	return &reviewer{tokens: t, access: a, now: now,
		users: cache[authnv1.UserInfo]{m: map[string]entry[authnv1.UserInfo]{}}, allows: cache[bool]{m: map[string]entry[bool]{}}}
}

func (r *reviewer) filter(log logr.Logger, next http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearer(req.Header.Get("Authorization"))
		if !ok {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		user, ok, err := r.authenticate(req.Context(), token)
		if err != nil {
			log.Error(err, "Authentication failed")
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		}
		if !ok {
			log.V(4).Info("Authentication failed")
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		verb, path := strings.ToLower(req.Method), req.URL.Path
		allowed, err := r.authorize(req.Context(), user, verb, path)
		if err != nil {
			msg := fmt.Sprintf("Authorization for user %s failed", user.Username)
			log.Error(err, msg)
			http.Error(w, msg, http.StatusInternalServerError)
			return
		}
		if !allowed {
			msg := fmt.Sprintf("Authorization denied for user %s", user.Username)
			log.V(4).Info(msg, "verb", verb, "path", path)
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, req)
	}), nil
}

// bearer returns the token of an "Authorization: Bearer <token>" header;
// the scheme is case-insensitive, as in RFC 9110 and the API server.
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "bearer") || token == "" {
		return "", false
	}
	return token, true
}

func (r *reviewer) authenticate(ctx context.Context, token string) (authnv1.UserInfo, bool, error) {
	sum := sha256.Sum256([]byte(token))
	key := string(sum[:])
	if u, ok := r.users.get(key, r.now()); ok {
		return u, true, nil
	}
	var res *authnv1.TokenReview
	err := retry.OnError(backoff, transient, func() error {
		ctx, cancel := context.WithTimeout(ctx, reviewTime)
		defer cancel()
		var err error
		res, err = r.tokens.Create(ctx, &authnv1.TokenReview{Spec: authnv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return authnv1.UserInfo{}, false, fmt.Errorf("TokenReview: %w", err)
	}
	if !res.Status.Authenticated {
		return authnv1.UserInfo{}, false, nil // not cached, as the API server's token cache does not keep failures long either
	}
	r.users.put(key, res.Status.User, r.now(), tokenTTL)
	return res.Status.User, true, nil
}

func (r *reviewer) authorize(ctx context.Context, u authnv1.UserInfo, verb, path string) (bool, error) {
	groups := append([]string(nil), u.Groups...)
	sort.Strings(groups)
	key := strings.Join([]string{u.Username, u.UID, strings.Join(groups, "\x00"), verb, path}, "\x01")
	if ok, hit := r.allows.get(key, r.now()); hit {
		return ok, nil
	}
	extra := map[string]authzv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = authzv1.ExtraValue(v)
	}
	sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra,
		NonResourceAttributes: &authzv1.NonResourceAttributes{Path: path, Verb: verb},
	}}
	var res *authzv1.SubjectAccessReview
	err := retry.OnError(backoff, transient, func() error {
		ctx, cancel := context.WithTimeout(ctx, reviewTime)
		defer cancel()
		var err error
		res, err = r.access.Create(ctx, sar, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		return false, fmt.Errorf("SubjectAccessReview: %w", err)
	}
	allowed := res.Status.Allowed && !res.Status.Denied
	ttl := denyTTL
	if allowed {
		ttl = allowTTL
	}
	r.allows.put(key, allowed, r.now(), ttl)
	return allowed, nil
}

// transient reports whether a review is worth retrying: the API server
// was busy, slow or unreachable, not a refusal.
func transient(err error) bool {
	var ne net.Error
	return apierrors.IsInternalError(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsTooManyRequests(err) || apierrors.IsServiceUnavailable(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// cache is a small map with expiry, bounded by maxEntries.
type cache[V any] struct {
	mu sync.Mutex
	m  map[string]entry[V]
}

func (c *cache[V]) get(k string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

func (c *cache[V]) put(k string, v V, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxEntries {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		if len(c.m) >= maxEntries {
			clear(c.m)
		}
	}
	c.m[k] = entry[V]{v: v, expires: now.Add(ttl)}
}
