package topics_test

import (
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
)

// TestWriter_SetWrite: an event is written by SetWrite only when Set
// reports a change (the first Set always does) or when forced; telemetry
// is written every time. As the reference's set/set_write.
func TestWriter_SetWrite(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	evT, telT := comp.Event("scalars"), comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, evT, telT)
	_, ws := startWriters(t, d, comp, 1, evT, telT)
	ev, tel := ws[0], ws[1]

	step := func(fields map[string]any, force, wantChanged, wantWritten bool) {
		t.Helper()
		res, err := ev.SetWrite(ctx, fields, force)
		if err != nil {
			t.Fatal(err)
		}
		if res.Changed != wantChanged || res.Written != wantWritten {
			t.Errorf("SetWrite(%v, force=%v): changed %v written %v, want %v %v", fields, force, res.Changed, res.Written, wantChanged, wantWritten)
		}
		if res.Written && (res.SeqNum == 0 || res.Data["private_seqNum"] != res.SeqNum) {
			t.Errorf("SetWrite(%v): result seqNum %d, data %v", fields, res.SeqNum, res.Data["private_seqNum"])
		}
	}
	step(map[string]any{"int0": int32(0)}, false, true, true) // the first set is a change, even to the default
	step(map[string]any{"int0": int32(0)}, false, false, false)
	step(map[string]any{"int0": 0}, false, false, false) // an int equal once converted
	step(map[string]any{"int0": nil}, false, false, false)
	step(nil, true, false, true) // forced
	step(map[string]any{"int0": int32(1), "short0": int16(2)}, false, true, true)
	step(map[string]any{"int0": int32(1), "short0": int16(3)}, false, true, true) // one of two fields changed
	step(map[string]any{"double0": math.NaN()}, false, true, true)
	step(map[string]any{"double0": math.NaN()}, false, false, false) // NaN equals NaN

	// Set then SetWrite of the same values: Set reported the change, so
	// SetWrite sees none (the reference writes nothing either).
	if ch, err := ev.Set(map[string]any{"int0": int32(5)}); err != nil || !ch {
		t.Errorf("Set int0=5: changed %v, err %v", ch, err)
	}
	if ch, err := ev.Set(map[string]any{"int0": int32(5)}); err != nil || ch {
		t.Errorf("Set int0=5 again: changed %v, err %v", ch, err)
	}
	step(map[string]any{"int0": int32(5)}, false, false, false)
	step(nil, true, false, true)
	if _, err := ev.Set(map[string]any{"byte0": 300}); err == nil {
		t.Error("Set byte0=300: no error")
	}
	if got := ev.Data()["byte0"]; got != uint8(0) {
		t.Errorf("a failed Set changed the data: byte0 = %v", got)
	}

	// The reader sees exactly the written events, in order.
	want := []struct {
		int0  int32
		short int16
	}{{0, 0}, {0, 0}, {1, 2}, {1, 3}, {1, 3}, {5, 3}}
	for i, w := range want {
		rec := next(t, ctx, rs[0])
		if rec["int0"] != w.int0 || rec["short0"] != w.short || rec["private_seqNum"] != int32(i+1) {
			t.Errorf("event %d: int0 %v short0 %v seqNum %v, want %d %d %d", i, rec["int0"], rec["short0"], rec["private_seqNum"], w.int0, w.short, i+1)
		}
	}
	if _, err := ev.SetWrite(ctx, map[string]any{"int0": int32(99)}, false); err != nil {
		t.Fatal(err)
	}
	if rec := next(t, ctx, rs[0]); rec["int0"] != int32(99) {
		t.Errorf("an event was written that should not have been: got int0 %v before the sentinel 99", rec["int0"])
	}

	// On a fresh writer too: the first Set is the change; a Set or SetWrite
	// of the same values after it is none.
	_, fresh := startWriter(t, d, comp, 2, evT)
	for i, want := range []bool{true, false} {
		if ch, err := fresh.Set(map[string]any{"int0": int32(8)}); err != nil || ch != want {
			t.Errorf("fresh writer, Set %d: changed %v (err %v), want %v", i, ch, err, want)
		}
	}
	if res, err := fresh.SetWrite(ctx, map[string]any{"int0": int32(8)}, false); err != nil || res.Changed || res.Written {
		t.Errorf("fresh writer, SetWrite after Set of the same value: %+v, %v; want neither changed nor written", res, err)
	}

	// Telemetry: always written.
	for i := range 3 {
		res, err := tel.SetWrite(ctx, map[string]any{"int0": int32(7)}, false)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Written || res.Changed != (i == 0) {
			t.Errorf("telemetry SetWrite %d: changed %v written %v", i, res.Changed, res.Written)
		}
	}
	for i := range 3 {
		if rec := next(t, ctx, rs[1]); rec["int0"] != int32(7) || rec["private_seqNum"] != int32(i+1) {
			t.Errorf("telemetry %d: %v %v", i, rec["int0"], rec["private_seqNum"])
		}
	}
}

// TestWriter_Concurrent: four goroutines writing asynchronously to one
// telemetry writer. Every completion callback runs once, with no error,
// in offset order; sequence numbers follow the offsets, and a reader sees
// 1..N with no gap and nothing out of order (private_sndStamp never goes
// back).
func TestWriter_Concurrent(t *testing.T) {
	const goroutines, each = 4, 500
	const n = goroutines * each
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: n}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)

	type ack struct {
		seq    int32
		offset int64
	}
	var mu sync.Mutex
	var acks []ack
	var errs, calls atomic.Int32
	done := func(res topics.WriteResult, err error) {
		calls.Add(1)
		if err != nil {
			errs.Add(1)
			return
		}
		mu.Lock()
		acks = append(acks, ack{res.SeqNum, res.Offset})
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if err := w.WriteAsync(ctx, map[string]any{"int0": int32(g*each + i)}, done); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()

	// A record that fails validation is reported at once; its callback never runs.
	var badCalled atomic.Bool
	err := w.WriteAsync(ctx, map[string]any{"byte0": -1}, func(topics.WriteResult, error) { badCalled.Store(true) })
	var fe *validate.FieldError
	if !errors.As(err, &fe) {
		t.Errorf("WriteAsync of byte0=-1: %v, want a *validate.FieldError", err)
	}
	if err := d.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "every completion callback", func() bool { return calls.Load() == n })
	if errs.Load() != 0 || badCalled.Load() {
		t.Errorf("%d callbacks with errors; callback of the invalid record ran: %v", errs.Load(), badCalled.Load())
	}
	if s := w.Stats(); s.Written != n || s.Failed != 1 {
		t.Errorf("writer stats %+v, want %d written and 1 failed", s, n)
	}
	// The callbacks, in the order they ran: offsets and seqNums both
	// increase, one by one.
	mu.Lock()
	for i, a := range acks {
		if a.seq != int32(i+1) {
			t.Fatalf("callback %d reports seqNum %d: callbacks do not run in send order", i, a.seq)
		}
		if i > 0 && a.offset != acks[i-1].offset+1 {
			t.Fatalf("callback %d reports offset %d after %d: callbacks do not run in offset order", i, a.offset, acks[i-1].offset)
		}
	}
	mu.Unlock()

	waitFor(t, ctx, "every record received", func() bool { return r.Stats().Received == n })
	// Received is counted before the record is decoded and delivered.
	waitFor(t, ctx, "every record delivered", func() bool { return r.Stats().Delivered == n })
	if s := r.Stats(); s.Lost != 0 || s.OutOfOrder != 0 || s.Overflow != 0 || s.Delivered != n {
		t.Fatalf("reader stats %+v: want all %d delivered, nothing lost, out of order or dropped", s, n)
	}
	last := 0.0
	for i := range n {
		rec := r.TryNext()
		if rec == nil {
			t.Fatalf("record %d missing", i)
		}
		if rec["private_seqNum"] != int32(i+1) {
			t.Fatalf("record %d: seqNum %v", i, rec["private_seqNum"])
		}
		snd := rec["private_sndStamp"].(float64)
		if snd < last {
			t.Fatalf("record %d (seqNum %d): private_sndStamp goes back by %g s", i, i+1, last-snd)
		}
		last = snd
	}
}

// TestWriter_Keys: records carry the reference's keys: the JSON key of
// commands, events and acks, and on telemetry a zero-length key, not a
// null one (as ts_salobj writes them; see the salobj8-wire fixture).
func TestWriter_Keys(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tel, ev := comp.Telemetry("scalars"), comp.Event("scalars")
	in, err := d.NewInstance(comp, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	wt, err := in.Writer(tel)
	if err != nil {
		t.Fatal(err)
	}
	we, err := in.Writer(ev)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, w := range []*topics.Writer{wt, we} {
		if _, err := w.Write(ctx, map[string]any{}); err != nil {
			t.Fatal(err)
		}
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(d.Config().Brokers...), kgo.ConsumeTopics(kname(d, tel), kname(d, ev)),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	keys := map[string][]byte{}
	for len(keys) < 2 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatal(err)
		}
		fs.EachRecord(func(r *kgo.Record) { keys[r.Topic] = r.Key })
	}
	if k := keys[kname(d, tel)]; k == nil || len(k) != 0 {
		t.Errorf("telemetry key %q (nil %v), want zero-length and not null", k, k == nil)
	}
	if k := string(keys[kname(d, ev)]); k != ev.Key(1) || k == "" {
		t.Errorf("event key %q, want %q", k, ev.Key(1))
	}
}
