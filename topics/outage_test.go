package topics_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestRegistryOutage: with the registry down, topics whose schemas are
// cached keep writing and reading; a topic never seen before fails with an
// error naming the registry; service resumes when the registry returns.
func TestRegistryOutage(t *testing.T) {
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg := testConfig(t, salxml.Embedded())
	cfg.Brokers, cfg.RegistryURL, cfg.Embedded = c.Brokers(), c.RegistryURL(), true
	cfg.User, cfg.Password, cfg.Protocol, cfg.Mechanism, cfg.TLS = "", "", "", "", nil
	d, err := topics.NewDomain(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	comp := example(t, d)

	start := func(tp *salxml.Topic) (*topics.Instance, *topics.Writer, *topics.Reader, error) {
		in, _ := d.NewInstance(comp, 1, "")
		w, _ := in.Writer(tp)
		r, _ := in.Reader(tp, topics.ReaderOptions{})
		return in, w, r, in.Start(ctxT(t))
	}
	roundTrip := func(w *topics.Writer, r *topics.Reader, v int32) {
		t.Helper()
		if _, err := w.Write(ctxT(t), map[string]any{"int0": v}); err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next(ctxT(t))
		if err != nil || rec["int0"] != v {
			t.Fatalf("read %v, %v", rec["int0"], err)
		}
	}

	inA, wA, rA, err := start(comp.Telemetry("scalars"))
	if err != nil {
		t.Fatal(err)
	}
	defer inA.Close()
	roundTrip(wA, rA, 1)

	c.RegistryOutage(true)
	roundTrip(wA, rA, 2) // cached schema id: unaffected

	inB, _, _, err := start(comp.Telemetry("arrays"))
	if err == nil {
		t.Fatal("a topic never registered started with the registry down")
	}
	if !strings.Contains(err.Error(), c.RegistryURL()) || !strings.Contains(err.Error(), "503") {
		t.Errorf("error does not name the registry and its answer: %v", err)
	}
	inB.Close()

	c.RegistryOutage(false)
	inC, wC, rC, err := start(comp.Telemetry("arrays"))
	if err != nil {
		t.Fatalf("after the registry returned: %v", err)
	}
	defer inC.Close()
	if _, err := wC.Write(context.Background(), map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := rC.Next(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	roundTrip(wA, rA, 3)
}
