package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/registry"

	"github.com/lsst-sal/salgo/internal/testbus"
)

// calls are every request of the client.
var calls = []struct {
	name string
	do   func(ctx context.Context, c *registry.Client) error
}{
	{"register Example-value", func(ctx context.Context, c *registry.Client) error {
		_, err := c.Register(ctx, "Example-value", `"string"`)
		return err
	}},
	{"schema id 7", func(ctx context.Context, c *registry.Client) error { _, err := c.Schema(ctx, 7); return err }},
	{"list subjects", func(ctx context.Context, c *registry.Client) error { return c.Ping(ctx) }},
	{"list subjects", func(ctx context.Context, c *registry.Client) error { _, err := c.Subjects(ctx); return err }},
	{"latest version of Example-value", func(ctx context.Context, c *registry.Client) error {
		_, _, _, _, err := c.Latest(ctx, "Example-value")
		return err
	}},
	{"look up Example-value", func(ctx context.Context, c *registry.Client) error {
		_, _, _, err := c.Lookup(ctx, "Example-value", `"string"`)
		return err
	}},
}

// guard runs do and fails the test if it has not returned within limit
// (a guard against a hang, not a measurement).
func guard(t *testing.T, limit time.Duration, do func() error) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- do() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(limit):
		t.Fatalf("no return within %s", limit)
		return nil
	}
}

// TestSilentRegistry_Timeout: against a registry that accepts connections
// and never answers, every request ends at the client's timeout with an
// error that names the registry URL and the request, and matches
// ErrUnavailable and context.DeadlineExceeded.
func TestSilentRegistry_Timeout(t *testing.T) {
	url := testbus.SilentServer(t)
	c, err := registry.New(url, nil, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range calls {
		err := guard(t, 20*time.Second, func() error { return call.do(context.Background(), c) })
		want := "registry " + url + ": " + call.name + ": no answer within 200ms"
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", call.name, err, want)
		}
		if !errors.Is(err, registry.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v does not match ErrUnavailable and DeadlineExceeded", call.name, err)
		}
	}
}

// TestSilentRegistry_CallerContext: a caller's ctx that ends before the
// client's timeout ends the request, with the ctx's error and the URL.
func TestSilentRegistry_CallerContext(t *testing.T) {
	url := testbus.SilentServer(t)
	c, err := registry.New(url, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range calls {
		err := guard(t, 20*time.Second, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			defer cancel()
			return call.do(ctx, c)
		})
		if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, registry.ErrUnavailable) {
			t.Errorf("%s: %v: want the caller's deadline", call.name, err)
		}
		if err == nil || !strings.HasPrefix(err.Error(), "registry "+url+": ") {
			t.Errorf("%s: %v does not name the registry", call.name, err)
		}
	}
	if c.Timeout() != time.Hour {
		t.Errorf("Timeout %s", c.Timeout())
	}
	if d, _ := registry.New(url, nil, 0); d.Timeout() != registry.DefaultTimeout || registry.DefaultTimeout != 10*time.Second {
		t.Errorf("default timeout %s", d.Timeout())
	}
}

// TestSubjects_Paged: a registry that returns at most a page of subjects
// (as Apicurio's Confluent API does: 1,000) is listed in full.
func TestSubjects_Paged(t *testing.T) {
	const n = 2345
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("s%05d-value", i))
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/subjects" {
			http.NotFound(w, r)
			return
		}
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		lim, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		if lim <= 0 || lim > 1000 {
			lim = 1000
		}
		end := min(off+lim, n)
		if off > n {
			off = n
		}
		json.NewEncoder(w).Encode(names[off:end])
	}))
	defer srv.Close()
	c, err := registry.New(srv.URL, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := c.Subjects(context.Background())
	if err != nil || len(got) != n || got[n-1] != names[n-1] {
		t.Fatalf("Subjects: %d of %d, %v", len(got), n, err)
	}
}

// TestRetryable: no answer, or an answer that the registry cannot serve
// now, is worth asking again; an answer about the schema itself (404 for
// an id it does not hold, a refusal) and a cancelled ctx are not.
func TestRetryable(t *testing.T) {
	status := map[string]int{"/schemas/ids/1": 404, "/schemas/ids/2": 503, "/schemas/ids/3": 500,
		"/schemas/ids/4": 429, "/schemas/ids/5": 408, "/schemas/ids/6": 401, "/schemas/ids/7": 422}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code := status[r.URL.Path]
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error_code":%d,"message":"test"}`, code*100+1)
	}))
	defer srv.Close()
	c, err := registry.New(srv.URL, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	want := map[int]bool{1: false, 2: true, 3: true, 4: true, 5: true, 6: false, 7: false}
	for id, retry := range want {
		_, err := c.Schema(context.Background(), id)
		if err == nil || registry.Retryable(err) != retry {
			t.Errorf("schema id %d: %v: Retryable %v, want %v", id, err, registry.Retryable(err), retry)
		}
		if registry.IsNotFound(err) != (id == 1) {
			t.Errorf("schema id %d: %v: IsNotFound %v", id, err, registry.IsNotFound(err))
		}
	}

	silent, err := registry.New(testbus.SilentServer(t), nil, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	if _, err := silent.Schema(context.Background(), 1); !registry.Retryable(err) {
		t.Errorf("silent registry: %v: not retryable", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := silent.Schema(ctx, 2); !registry.Retryable(err) {
		t.Errorf("caller's deadline: %v: not retryable", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := silent.Schema(ctx, 3); err == nil || registry.Retryable(err) {
		t.Errorf("cancelled ctx: %v: retryable", err)
	}

	// Port 1 on loopback: nothing listens there (a closed test server's
	// port could be taken by another package's listener meanwhile).
	refused, err := registry.New("http://127.0.0.1:1", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer refused.Close()
	if _, err := refused.Schema(context.Background(), 1); !registry.Retryable(err) {
		t.Errorf("connection refused: %v: not retryable", err)
	}
}
