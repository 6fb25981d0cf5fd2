package topics_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

// TestReader_Inline: SetInline delivers every record, in order, on the
// poll goroutine, queues none, counts them as delivered, makes SetCallback
// a no-op, and is refused once the instance started.
func TestReader_Inline(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := in.Reader(tp, topics.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seqs []int32
	if err := topics.SetInline(r, func(rec map[string]any) {
		mu.Lock()
		seqs = append(seqs, rec["private_seqNum"].(int32))
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	r.SetCallback(func(map[string]any) { t.Error("callback called on an inline reader") })
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := topics.SetInline(r, func(map[string]any) {}); !errors.Is(err, topics.ErrStarted) {
		t.Errorf("SetInline after Start: %v, want ErrStarted", err)
	}
	_, w := startWriter(t, d, comp, 1, tp)
	const n = 50
	for range n {
		if _, err := w.Write(ctx, map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, ctx, "50 records delivered inline", func() bool { mu.Lock(); defer mu.Unlock(); return len(seqs) == n })
	mu.Lock()
	for i, s := range seqs {
		if s != int32(i+1) {
			t.Fatalf("record %d has seqNum %d, want %d (got %v)", i, s, i+1, seqs)
		}
	}
	mu.Unlock()
	if s := r.Stats(); s.Delivered != n || s.Queued != 0 {
		t.Errorf("stats %+v, want %d delivered, none queued", s, n)
	}
	if rec := r.TryNext(); rec != nil {
		t.Errorf("TryNext returned a record of an inline reader: %v", rec)
	}
	if got := r.Get(); got == nil || got["private_seqNum"] != int32(n) {
		t.Errorf("Get: %v, want the last record (seqNum %d)", got, n)
	}
}

// TestReader_OwnConsumer: a reader with a consumer of its own and readers
// on the shared one each get their records, and Close stops both loops.
func TestReader_OwnConsumer(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	ownT, sharedT := comp.Telemetry("scalars"), comp.Telemetry("status")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	own, err := topics.NewOwnReader(in, ownT, topics.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := in.Reader(sharedT, topics.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, writers := startWriters(t, d, comp, 1, ownT, sharedT)
	wo, ws := writers[0], writers[1]
	for i := range 10 {
		for _, w := range []*topics.Writer{wo, ws} {
			if _, err := w.Write(ctx, map[string]any{}); err != nil {
				t.Fatalf("write %d: %v", i, err)
			}
		}
	}
	for _, r := range []*topics.Reader{own, shared} {
		for i := range 10 {
			if rec := next(t, ctx, r); rec["private_seqNum"] != int32(i+1) {
				t.Fatalf("%s: record %d has seqNum %v", r.Topic(), i, rec["private_seqNum"])
			}
		}
	}
	in.Close()
	if _, err := own.Next(ctx); !errors.Is(err, topics.ErrClosed) {
		t.Errorf("Next after Close: %v, want ErrClosed", err)
	}
}
