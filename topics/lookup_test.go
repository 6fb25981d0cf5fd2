package topics_test

import (
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Records with garbage schema ids must not stall a reader: each unknown id
// costs a registry lookup, which the topic's records wait for, so lookups
// are limited to 20 a second. 500 records with 500 distinct unknown ids are all
// counted undecodable, the registry sees a bounded number of lookups, and
// a good record written after them is delivered.
func TestUnknownSchemaIDsLimited(t *testing.T) {
	cfg := testConfig(t, salxml.Embedded())
	target, err := url.Parse(cfg.RegistryURL)
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			lookups.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg.RegistryURL = srv.URL
	ctx := ctxT(t)
	d, err := topics.NewDomain(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	comp := example(t, d)
	tp := comp.Topic("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	_, w := startWriter(t, d, comp, 1, tp)

	const n = 500
	vals := make([][]byte, n)
	for i := range vals {
		// Magic byte 0, a schema id nobody registered, then junk.
		id := 7_000_000 + i
		vals[i] = []byte{0, byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id), 1, 2, 3}
	}
	start := time.Now()
	produce(t, rawProducer(t, d), kname(d, tp), vals...)
	if _, err := w.Write(ctx, map[string]any{"int0": 42}); err != nil {
		t.Fatal(err)
	}
	rec := next(t, ctx, rs[0])
	elapsed := time.Since(start)
	if rec["int0"] != int32(42) {
		t.Fatalf("delivered %v, want the good record (int0 42)", rec["int0"])
	}
	st := rs[0].Stats()
	if st.Undecodable != n {
		t.Errorf("Undecodable = %d, want %d", st.Undecodable, n)
	}
	// At most 20 lookups in each second begun since the records were sent.
	limit := int64(20 * (math.Ceil(elapsed.Seconds()) + 1))
	if got := lookups.Load(); got > limit || got == 0 {
		t.Errorf("registry saw %d lookups by id in %s; want 1..%d", got, elapsed, limit)
	}
	t.Logf("%d undecodable records, %d lookups, good record after %s", st.Undecodable, lookups.Load(), elapsed)
}
