package s3store

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

// TestMain fails the package's tests if any goroutine outlives them.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// TestStore_ServesAndCloses: the store answers S3's list of buckets on
// loopback, stops on Close (safe twice), and leaves no goroutine.
func TestStore_ServesAndCloses(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL = %q, want loopback", s.URL())
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	resp, err := c.Get(s.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET / = %s, want 200 (ListBuckets)", resp.Status)
	}
	s.Close()
	s.Close()
	if resp, err := c.Get(s.URL() + "/"); err == nil {
		resp.Body.Close()
		t.Fatalf("GET after Close = %s, want a refused connection", resp.Status)
	}
}
