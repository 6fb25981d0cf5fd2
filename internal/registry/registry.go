package registry

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// ErrUnavailable is matched by errors reaching the registry.
var ErrUnavailable = errors.New("schema registry unavailable")

// ErrBadURL is matched by an unusable registry URL.
var ErrBadURL = errors.New("bad schema registry URL")

// DefaultTimeout bounds each request when New is given no timeout.
const DefaultTimeout = 10 * time.Second

// timeoutError is a request that got no answer within the client's
// timeout: it matches ErrUnavailable and context.DeadlineExceeded.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("no answer within %s", e.d) }

// Is matches ErrUnavailable and context.DeadlineExceeded.
func (e *timeoutError) Is(target error) bool {
	return target == ErrUnavailable || target == context.DeadlineExceeded
}

// Client talks to one Confluent-compatible registry.
type Client struct {
	cl      *sr.Client
	hc      *http.Client // with a transport of its own, closed by Close
	url     string       // without credentials, for messages
	timeout time.Duration

	mu     sync.Mutex
	ids    map[subjectSchema]int
	byID   map[int]string
	flight map[int]chan struct{}
}

// New checks the URL and makes a client. Credentials in the URL's user
// info are sent as basic auth and never appear in errors. Every request
// is bounded by the caller's ctx and by timeout (DefaultTimeout when 0): a
// registry that accepts connections but never answers gives, after
// timeout, an error naming its URL that matches ErrUnavailable and
// context.DeadlineExceeded.
func New(rawURL string, tlsCfg *tls.Config, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("registry: %w %q: want http(s)://host:port[/path]", ErrBadURL, redact(rawURL))
	}
	if timeout < 0 {
		return nil, fmt.Errorf("registry: timeout %s: want a positive duration (0 for the default %s)", timeout, DefaultTimeout)
	}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	// Each request's ctx carries the timeout (see bound); the HTTP
	// client's own, a little longer, is only a backstop.
	hc := &http.Client{Timeout: timeout + time.Second, Transport: http.DefaultTransport.(*http.Transport).Clone()}
	opts := []sr.ClientOpt{sr.UserAgent("salgo"), sr.HTTPClient(hc)}
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, sr.BasicAuth(u.User.Username(), pass))
		u.User = nil
	}
	clean := strings.TrimSuffix(u.String(), "/")
	opts = append(opts, sr.URLs(clean))
	if tlsCfg != nil {
		opts = append(opts, sr.DialTLSConfig(tlsCfg))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("registry: %w: %v", ErrBadURL, err)
	}
	return &Client{cl: cl, hc: hc, url: clean, timeout: timeout, ids: map[subjectSchema]int{}, byID: map[int]string{}, flight: map[int]chan struct{}{}}, nil
}

// Close closes the client's idle connections to the registry (kept
// alive between requests; each holds two goroutines). A request after
// Close opens a new connection.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Timeout returns the limit of each request.
func (c *Client) Timeout() time.Duration { return c.timeout }

// bound is ctx limited to the client's timeout, whose end is told apart
// from the caller's by its cause.
func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.timeout, &timeoutError{c.timeout})
}

// URL returns the registry URL without credentials.
func (c *Client) URL() string { return c.url }

// Register registers schema under subject and returns its id; repeated
// calls are answered from the cache.
func (c *Client) Register(ctx context.Context, subject, schema string) (int, error) {
	key := subjectSchema{subject, schema}
	c.mu.Lock()
	id, ok := c.ids[key]
	c.mu.Unlock()
	if ok {
		return id, nil
	}
	rctx, cancel := c.bound(ctx)
	defer cancel()
	id, err := c.cl.RegisterSchema(rctx, subject, sr.Schema{Schema: schema, Type: sr.TypeAvro}, -1, -1)
	if err != nil {
		return 0, c.wrap(rctx, "register "+subject, err)
	}
	c.mu.Lock()
	c.ids[key] = id
	c.byID[id] = schema
	c.mu.Unlock()
	return id, nil
}

// subjectSchema keys the ids registered. It holds the caller's strings
// rather than a concatenation, so the cache does not copy each schema's text
// (a Remote of every component registers about 9 MB of schemas).
type subjectSchema struct{ subject, schema string }

// Schema returns the schema text with the given id, fetching it once.
func (c *Client) Schema(ctx context.Context, id int) (string, error) {
	for {
		c.mu.Lock()
		if s, ok := c.byID[id]; ok {
			c.mu.Unlock()
			return s, nil
		}
		wait, busy := c.flight[id]
		if !busy {
			wait = make(chan struct{})
			c.flight[id] = wait
		}
		c.mu.Unlock()
		if busy {
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return "", fmt.Errorf("registry %s: schema id %d: %w", c.url, id, ctx.Err())
			}
		}
		rctx, cancel := c.bound(ctx)
		s, err := c.cl.SchemaByID(rctx, id)
		cancel()
		c.mu.Lock()
		delete(c.flight, id)
		if err == nil {
			c.byID[id] = s.Schema
		}
		c.mu.Unlock()
		close(wait)
		if err != nil {
			return "", c.wrap(rctx, fmt.Sprintf("schema id %d", id), err)
		}
		return s.Schema, nil
	}
}

// Ping checks that the registry answers.
func (c *Client) Ping(ctx context.Context) error {
	rctx, cancel := c.bound(ctx)
	defer cancel()
	if _, err := c.cl.Subjects(rctx); err != nil {
		return c.wrap(rctx, "list subjects", err)
	}
	return nil
}

// IsNotFound reports whether err is the registry saying a schema or
// subject does not exist.
func IsNotFound(err error) bool {
	var re *sr.ResponseError
	return errors.As(err, &re) && re.StatusCode == 404
}

// Retryable reports whether err is the registry not answering, or
// answering that it cannot now (HTTP 5xx, 408 Request Timeout, 429 Too
// Many Requests), as opposed to an answer (such as 404 for an id it does
// not hold) that asking again would not change. A deadline of the
// caller's ctx counts as no answer; a cancelled ctx does not.
func Retryable(err error) bool {
	var re *sr.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode >= 500 || re.StatusCode == http.StatusRequestTimeout || re.StatusCode == http.StatusTooManyRequests
	}
	return errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded)
}

// wrap names the registry and the request in err; rctx is the request's
// ctx (from bound), whose cause tells the client's timeout from the
// caller's.
func (c *Client) wrap(rctx context.Context, what string, err error) error {
	var re *sr.ResponseError
	if errors.As(err, &re) {
		return fmt.Errorf("registry %s: %s: HTTP %d: %w", c.url, what, re.StatusCode, err)
	}
	var te *timeoutError
	if cause := context.Cause(rctx); errors.As(cause, &te) {
		return fmt.Errorf("registry %s: %s: %w", c.url, what, te)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("registry %s: %s: %w", c.url, what, err)
	}
	return fmt.Errorf("registry %s: %s: %w: %v", c.url, what, ErrUnavailable, redactErr(err))
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if i := strings.Index(raw, "@"); i >= 0 {
			return "***" + raw[i:]
		}
		return raw
	}
	u.User = url.User("***")
	return u.String()
}

func redactErr(err error) string {
	s := err.Error()
	if i := strings.Index(s, "://"); i >= 0 {
		if j := strings.Index(s[i:], "@"); j >= 0 && !strings.ContainsAny(s[i:i+j], " /") {
			s = s[:i+3] + "***" + s[i+j:]
		}
	}
	return s
}

// Latest returns the newest version registered under subject; found is
// false when the subject does not exist.
func (c *Client) Latest(ctx context.Context, subject string) (schema string, version, id int, found bool, err error) {
	rctx, cancel := c.bound(ctx)
	defer cancel()
	ss, err := c.cl.SchemaByVersion(rctx, subject, -1)
	if err != nil {
		if IsNotFound(err) {
			return "", 0, 0, false, nil
		}
		return "", 0, 0, false, c.wrap(rctx, "latest version of "+subject, err)
	}
	return ss.Schema.Schema, ss.Version, ss.ID, true, nil
}

// Newest is what the registry holds as the newest version of a subject,
// compared with a schema (see Client.Newest).
type Newest struct {
	Schema      string // its text, as the registry returns it
	Version, ID int
	Found       bool // the subject exists
	Same        bool // it is the schema compared with
}

// Newest returns the newest version registered under subject and whether
// it is schema: the same text, the same JSON value (registries may return
// the text re-serialised: Apicurio drops the spaces and unescapes
// non-ASCII), or else what the registry answers when asked for schema's
// own version (Lookup), which it finds by its normalised form.
func (c *Client) Newest(ctx context.Context, subject, schema string) (Newest, error) {
	text, version, id, found, err := c.Latest(ctx, subject)
	if err != nil || !found {
		return Newest{}, err
	}
	n := Newest{Schema: text, Version: version, ID: id, Found: true, Same: sameJSON(text, schema)}
	if !n.Same {
		lid, _, ok, err := c.Lookup(ctx, subject, schema)
		if err != nil {
			return Newest{}, err
		}
		n.Same = ok && lid == id
	}
	return n, nil
}

// sameJSON says whether two JSON texts hold the same value.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// subjectsPage is how many subjects Subjects asks for at a time.
const subjectsPage = 1000

// Subjects lists every subject, page by page: some registries (Apicurio's
// Confluent API) return at most a page (1,000) unless asked for the next
// one with offset and limit. A registry that ignores those parameters
// returns everything at once, or the same page again, which ends the
// listing.
func (c *Client) Subjects(ctx context.Context) ([]string, error) {
	var all []string
	seen := map[string]bool{}
	for offset := 0; ; offset += subjectsPage {
		rctx, cancel := c.bound(ctx)
		page, err := c.cl.Subjects(sr.WithParams(rctx, sr.Offset(offset), sr.Limit(subjectsPage)))
		if err != nil {
			err = c.wrap(rctx, "list subjects", err)
			cancel()
			return nil, err
		}
		cancel()
		fresh := 0
		for _, s := range page {
			if !seen[s] {
				seen[s] = true
				all = append(all, s)
				fresh++
			}
		}
		if len(page) < subjectsPage || fresh == 0 {
			return all, nil
		}
	}
}

// Lookup asks whether schema is registered under subject (POST
// /subjects/{subject}); the registry compares its normalised forms.
func (c *Client) Lookup(ctx context.Context, subject, schema string) (id, version int, found bool, err error) {
	rctx, cancel := c.bound(ctx)
	defer cancel()
	ss, err := c.cl.LookupSchema(rctx, subject, sr.Schema{Schema: schema, Type: sr.TypeAvro})
	if err != nil {
		if IsNotFound(err) {
			return 0, 0, false, nil
		}
		return 0, 0, false, c.wrap(rctx, "look up "+subject, err)
	}
	return ss.ID, ss.Version, true, nil
}
