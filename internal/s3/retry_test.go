package s3

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded/s3store"
	"github.com/lsst-sal/salgo/internal/leaktest"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// faultyProxy forwards to an in-process store and answers 503 SlowDown
// to the requests fail picks.
type faultyProxy struct {
	srv  *httptest.Server
	tr   *http.Transport
	mu   sync.Mutex
	seen map[string]int                      // requests by kind (method and S3 sub-resource)
	fail func(kind string, n, part int) bool // n: requests of that kind so far; part: UploadPart's partNumber, else 0
}

func kind(r *http.Request) string {
	q := r.URL.Query()
	switch {
	case q.Has("partNumber"):
		return "UploadPart"
	case q.Has("uploads"):
		return "CreateMultipartUpload"
	case q.Has("uploadId") && r.Method == http.MethodPost:
		return "CompleteMultipartUpload"
	case q.Has("uploadId") && r.Method == http.MethodDelete:
		return "AbortMultipartUpload"
	case r.Method == http.MethodPut && strings.Count(strings.Trim(r.URL.Path, "/"), "/") > 0:
		return "PutObject"
	}
	return r.Method
}

func startFaulty(t *testing.T, fail func(kind string, n, part int) bool) (*faultyProxy, *Client) {
	t.Helper()
	store, err := s3store.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	target, _ := url.Parse(store.URL())
	p := &faultyProxy{tr: &http.Transport{}, seen: map[string]int{}, fail: fail}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = p.tr
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := kind(r)
		p.mu.Lock()
		p.seen[k]++
		n, part := p.seen[k], 0
		if k == "UploadPart" {
			p.seen["UploadPart#"+r.URL.Query().Get("partNumber")]++
			part, _ = strconv.Atoi(r.URL.Query().Get("partNumber"))
		}
		p.mu.Unlock()
		if p.fail(k, n, part) {
			_, _ = io.Copy(io.Discard, r.Body) // as a store does before it answers
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { p.srv.Close(); p.tr.CloseIdleConnections() })
	c, err := New(context.Background(), Config{
		Endpoint: p.srv.URL, Static: true, PartSize: MinPartSize, Concurrency: 2,
		MaxAttempts: 3, MaxBackoff: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.CreateBucket(context.Background(), "bkt"); err != nil {
		t.Fatal(err)
	}
	return p, c
}

func (p *faultyProxy) count(k string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[k]
}

func data(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>11)
	}
	return b
}

// TestUpload_RetriesTransientErrors: a part answered 503 once is sent
// again, and the object is whole.
func TestUpload_RetriesTransientErrors(t *testing.T) {
	p, c := startFaulty(t, func(k string, n, _ int) bool {
		return (k == "UploadPart" && n == 2) || (k == "PutObject" && n == 1)
	})
	ctx := context.Background()
	want := data(3*MinPartSize + 10)
	if _, err := c.Upload(ctx, "bkt", "multi", bytes.NewReader(want), Upload{Size: -1}); err != nil {
		t.Fatalf("multipart upload with one 503: %v", err)
	}
	if got := p.count("UploadPart"); got != 5 {
		t.Errorf("UploadPart requests = %d, want 4 parts + 1 retry", got)
	}
	var buf bytes.Buffer
	if _, err := c.Download(ctx, "bkt", "multi", &buf); err != nil {
		t.Fatal(err)
	}
	if sha256.Sum256(buf.Bytes()) != sha256.Sum256(want) {
		t.Fatal("the object differs from the bytes uploaded")
	}
	if _, err := c.Upload(ctx, "bkt", "small", strings.NewReader("hello"), Upload{Size: 5}); err != nil {
		t.Fatalf("PutObject with one 503: %v", err)
	}
}

// TestUpload_GivesUpAfterMaxAttempts: a part that always fails is tried
// MaxAttempts times, the upload is aborted (no object), and the error
// names endpoint, bucket and key.
func TestUpload_GivesUpAfterMaxAttempts(t *testing.T) {
	// By part number, not by arrival: with two parts in flight, part 2
	// may reach the store before part 1.
	p, c := startFaulty(t, func(k string, _, part int) bool { return k == "UploadPart" && part >= 2 })
	ctx := context.Background()
	_, err := c.Upload(ctx, "bkt", "doomed", bytes.NewReader(data(2*MinPartSize+1)), Upload{Size: -1})
	if err == nil {
		t.Fatal("upload succeeded")
	}
	text := err.Error()
	for _, want := range []string{`s3: upload: bucket "bkt", key "doomed", endpoint ` + p.srv.URL + ": ", "SlowDown", "attempts"} {
		if !strings.Contains(text, want) {
			t.Errorf("error %q does not hold %q", text, want)
		}
	}
	if n := p.count("AbortMultipartUpload"); n != 1 {
		t.Errorf("AbortMultipartUpload requests = %d, want 1", n)
	}
	if n := p.count("CompleteMultipartUpload"); n != 0 {
		t.Errorf("CompleteMultipartUpload requests = %d, want 0", n)
	}
	if _, err := c.Size(ctx, "bkt", "doomed"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Size after a failed upload: %v, want ErrNotFound", err)
	}
	// Part 1 went through; the others were tried MaxAttempts (3) times
	// each, or fewer for one cancelled when the first gave up.
	most := 0
	for part := 2; part <= 3; part++ {
		most = max(most, p.count(fmt.Sprintf("UploadPart#%d", part)))
	}
	if most != 3 || p.count("UploadPart#1") != 1 {
		t.Errorf("UploadPart requests: part 1 %d, most of another %d; want 1 and 3 (MaxAttempts)", p.count("UploadPart#1"), most)
	}
}
