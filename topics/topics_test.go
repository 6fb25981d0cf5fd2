package topics_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"

	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// roundTrip writes one random record on every topic of comp and checks
// that a reader gets it back with the same values.
func roundTrip(t *testing.T, d *topics.Domain, comp *salxml.Component, index int) {
	ctx := ctxT(t)
	wi, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	ri, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	writers := map[*salxml.Topic]*topics.Writer{}
	readers := map[*salxml.Topic]*topics.Reader{}
	for _, tp := range comp.Topics {
		if writers[tp], err = wi.Writer(tp); err != nil {
			t.Fatal(err)
		}
		if readers[tp], err = ri.Reader(tp, topics.ReaderOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := wi.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ri.Start(ctx); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(comp.Topics))))
	sent := map[*salxml.Topic]map[string]any{}
	for _, tp := range comp.Topics {
		rec := randomRecord(tp, rng)
		want := map[string]any{}
		for k, v := range rec {
			want[k] = v
		}
		if _, err := writers[tp].Write(ctx, rec); err != nil {
			t.Fatalf("%s: %v", tp, err)
		}
		sent[tp] = want
	}
	for _, tp := range comp.Topics {
		got, err := readers[tp].Next(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tp, err)
		}
		for k, v := range sent[tp] {
			if !reflect.DeepEqual(got[k], v) {
				t.Errorf("%s.%s: got %#v, want %#v", tp, k, got[k], v)
			}
		}
		if got["private_seqNum"] != int32(1) || got["private_origin"] != int32(d.Origin()) || got["private_revCode"] != tp.RevCode() {
			t.Errorf("%s: private fields %v %v %v", tp, got["private_seqNum"], got["private_origin"], got["private_revCode"])
		}
		if tp.Indexed && got["salIndex"] != int32(index) {
			t.Errorf("%s: salIndex %v", tp, got["salIndex"])
		}
		snd, rcv := got["private_sndStamp"].(float64), got["private_rcvStamp"].(float64)
		if snd <= 0 || rcv < snd || got["private_efdStamp"].(float64) != snd-37 {
			t.Errorf("%s: stamps snd=%v rcv=%v efd=%v", tp, snd, rcv, got["private_efdStamp"])
		}
	}
	ri.Close()
	wi.Close()
}

func TestRoundTrip_Example(t *testing.T) {
	d := newDomain(t, nil)
	roundTrip(t, d, example(t, d), 5)
}

func TestRoundTrip_MTM1M3(t *testing.T) {
	defs, err := salxml.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if !defs.Has("MTM1M3") {
		t.Skip("TS_XML_DIR is not set: MTM1M3 is only in the real ts_xml")
	}
	d := newDomain(t, defs)
	c, err := d.Component("MTM1M3")
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, d, c, 0)
}

func TestLateJoiner_NewestPerIndex(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	ev := comp.Event("scalars")
	last := map[int32]int16{}
	for _, idx := range []int{1, 2, 3} {
		wi, err := d.NewInstance(comp, idx, "")
		if err != nil {
			t.Fatal(err)
		}
		w, err := wi.Writer(ev)
		if err != nil {
			t.Fatal(err)
		}
		if err := wi.Start(ctx); err != nil {
			t.Fatal(err)
		}
		for i := range 200 {
			v := int16(idx*1000 + i)
			if err := w.WriteAsync(ctx, map[string]any{"short0": v}, nil); err != nil {
				t.Fatal(err)
			}
			last[int32(idx)] = v
		}
		defer wi.Close()
	}
	if err := d.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	// A reader of index 0 gets exactly the newest record of each index.
	r0, in0 := startReader(t, d, comp, 0, ev)
	got := map[int32]int16{}
	for range 3 {
		rec, err := r0.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got[rec["salIndex"].(int32)] = rec["short0"].(int16)
	}
	if !reflect.DeepEqual(got, last) {
		t.Errorf("history: got %v, want %v", got, last)
	}
	if rec := r0.TryNext(); rec != nil {
		t.Errorf("more than one historical record per index: %v", rec["short0"])
	}
	if s := r0.Stats(); s.Historical != 3 {
		t.Errorf("historical %d, want 3", s.Historical)
	}

	// A reader of index 2 gets only index 2.
	r2, in2 := startReader(t, d, comp, 2, ev)
	rec, err := r2.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec["salIndex"] != int32(2) || rec["short0"] != last[2] {
		t.Errorf("index 2 reader got %v %v", rec["salIndex"], rec["short0"])
	}
	if rec := r2.TryNext(); rec != nil {
		t.Errorf("index 2 reader got a second record: %v", rec["salIndex"])
	}

	// Then live data.
	wi, _ := d.NewInstance(comp, 2, "")
	w, _ := wi.Writer(ev)
	if err := wi.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer wi.Close()
	if _, err := w.Write(ctx, map[string]any{"short0": int16(7)}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*topics.Reader{r0, r2} {
		rec, err := r.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec["short0"] != int16(7) {
			t.Errorf("live: got %v", rec["short0"])
		}
	}
	in0.Close()
	in2.Close()
}

func TestLateJoiner_Empty(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	r, in := startReader(t, d, comp, 0, comp.Event("arrays"))
	defer in.Close()
	if rec := r.TryNext(); rec != nil {
		t.Fatal("record from an empty topic")
	}
	select {
	case <-in.Ready():
	default:
		t.Fatal("not ready")
	}
}

func startReader(t *testing.T, d *topics.Domain, comp *salxml.Component, index int, tp *salxml.Topic) (*topics.Reader, *topics.Instance) {
	t.Helper()
	in, err := d.NewInstance(comp, index, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := in.Reader(tp, topics.ReaderOptions{MaxHistory: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return r, in
}

func TestClose_Twice(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	r, in := startReader(t, d, comp, 1, comp.Event("scalars"))
	r.SetCallback(func(map[string]any) {})
	in.Close()
	in.Close()
	if _, err := r.Next(context.Background()); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestWrite_ClosedAndValidation(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	in, _ := d.NewInstance(comp, 1, "")
	w, _ := in.Writer(comp.Telemetry("scalars"))
	if _, err := w.Write(ctxT(t), map[string]any{}); !errors.Is(err, topics.ErrNotStarted) {
		t.Errorf("before start: %v", err)
	}
	if err := in.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ctxT(t), map[string]any{"byte0": 300}); err == nil {
		t.Error("byte0=300 accepted")
	}
	in.Close()
	if _, err := w.Write(ctxT(t), map[string]any{}); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("after close: %v", err)
	}
}
