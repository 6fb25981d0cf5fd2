package topics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestReader_OtherSchemaVersions: records framed with the id of another
// version of the topic's schema are resolved into the reader's schema: a
// field the writer lacks takes the reader default, a field the reader
// lacks is dropped, an int the reader reads as long long is promoted.
func TestReader_OtherSchemaVersions(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]

	// (a) an older version: double0 and string0 not yet there, longLong0
	// still a 32-bit int.
	older := copyTopic(tp, func(fs []*salxml.Field) []*salxml.Field {
		out := fs[:0]
		for _, f := range fs {
			switch f.Name {
			case "double0", "string0":
				continue
			case "longLong0":
				f.Type = salxml.Int
			}
			out = append(out, f)
		}
		return out
	})
	// (b) a newer version: one scalar and one array field added (each with
	// its default in the schema text), which this reader does not know.
	newer := copyTopic(tp, func(fs []*salxml.Field) []*salxml.Field {
		return append(fs,
			&salxml.Field{Name: "addedDouble", Type: salxml.Double, Count: 1, Units: "second", Description: "Added in a later version."},
			&salxml.Field{Name: "addedArray", Type: salxml.Short, Count: 4, Units: "unitless", Description: "Added in a later version."})
	})
	subject := tp.Subject(d.Config().Subname)
	own := schemaID(t, d, tp)
	// A real registry enforces BACKWARD compatibility; this test registers
	// an older version after the current one on purpose.
	setCompatibility(t, d.Config().RegistryURL, subject, "NONE")
	idOld := registerSchema(t, d.Config().RegistryURL, subject, older.AvroSchema())
	idNew := registerSchema(t, d.Config().RegistryURL, subject, newer.AvroSchema())
	if idOld == own || idNew == own || idOld == idNew {
		t.Fatalf("schema ids own=%d older=%d newer=%d are not distinct: the versions were not registered as such", own, idOld, idNew)
	}

	p := peer{identity: "Python@elsewhere", origin: 4242, index: 1}
	base := topics.TAI()
	common := map[string]any{"boolean0": true, "byte0": uint8(200), "short0": int16(-300), "int0": int32(70000), "long0": int32(-8)}
	oldFields := map[string]any{"longLong0": int32(-123456)}
	newFields := map[string]any{"double0": 2.5, "string0": "newer", "longLong0": int64(1) << 40, "addedDouble": 9.75, "addedArray": []int16{1, 2, 3, 4}}
	for k, v := range common {
		oldFields[k], newFields[k] = v, v
	}
	cl := rawProducer(t, d)
	produce(t, cl, kname(d, tp),
		frame(t, older, idOld, p.record(t, older, oldFields, 1, base)),
		frame(t, newer, idNew, p.record(t, newer, newFields, 2, base+0.001)),
	)

	got := next(t, ctx, r)
	for k, v := range common {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("older: %s = %#v, want %#v", k, got[k], v)
		}
	}
	if got["longLong0"] != int64(-123456) {
		t.Errorf("older: longLong0 written as int = %#v, want int64(-123456)", got["longLong0"])
	}
	if got["double0"] != 0.0 || got["string0"] != "" {
		t.Errorf("older: fields missing in the writer schema = %#v, %#v, want the reader defaults 0.0 and \"\"", got["double0"], got["string0"])
	}
	if got["private_seqNum"] != int32(1) || got["private_identity"] != p.identity || got["salIndex"] != int32(1) {
		t.Errorf("older: private fields %v %v %v", got["private_seqNum"], got["private_identity"], got["salIndex"])
	}

	got = next(t, ctx, r)
	for k, v := range newFields {
		if k == "addedDouble" || k == "addedArray" {
			if _, ok := got[k]; ok {
				t.Errorf("newer: field %s unknown to the reader was delivered", k)
			}
			continue
		}
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("newer: %s = %#v, want %#v", k, got[k], v)
		}
	}
	if len(got) != len(tp.Fields) {
		t.Errorf("newer: %d fields delivered, want the reader's %d", len(got), len(tp.Fields))
	}
	if s := r.Stats(); s.Undecodable != 0 || s.Delivered != 2 {
		t.Errorf("stats %+v", s)
	}
}

// TestReader_Overflow: a full queue drops the oldest record and counts it.
func TestReader_Overflow(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 10}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	for i := range 25 {
		if _, err := w.Write(ctx, map[string]any{"int0": int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, ctx, "25 records delivered", func() bool { return r.Stats().Delivered == 25 })
	s := r.Stats()
	if s.Overflow != 15 || s.Queued != 10 {
		t.Errorf("overflow %d queued %d, want 15 and 10 (stats %+v)", s.Overflow, s.Queued, s)
	}
	if g := r.Get(); g == nil || g["int0"] != int32(24) {
		t.Errorf("Get: %v, want the newest (int0 24)", g)
	}
	for i := 15; i < 25; i++ {
		if rec := r.TryNext(); rec == nil || rec["int0"] != int32(i) {
			t.Fatalf("queue position %d: %v, want int0 %d", i-15, rec, i)
		}
	}
	if rec := r.TryNext(); rec != nil {
		t.Errorf("an 11th record in a queue of 10: %v", rec["int0"])
	}
}

// TestReader_Malformed: records that cannot be decoded are counted and
// skipped; the reader goes on delivering the valid ones.
func TestReader_Malformed(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	id := schemaID(t, d, tp)
	p := peer{identity: "fuzzer@host", origin: 1, index: 1}
	base := topics.TAI()
	valid := frame(t, tp, id, p.record(t, tp, map[string]any{"int0": int32(1), "string0": "hello"}, 1, base))

	rng := rand.New(rand.NewPCG(7, 8))
	random := make([]byte, 64)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	random[0] = 0xA5 // not the magic byte, so it cannot decode by chance
	wrongMagic := append([]byte{1}, valid[1:]...)
	unknownID := append(codec.AppendHeader(nil, 1<<30), valid[codec.HeaderLen:]...)
	truncated := valid[:codec.HeaderLen+(len(valid)-codec.HeaderLen)/2]
	trailing := append(append([]byte(nil), valid...), 0, 0, 0)
	bad := [][]byte{random, nil, {0, 0, 0}, wrongMagic, unknownID, truncated, trailing}

	cl := rawProducer(t, d)
	produce(t, cl, kname(d, tp), bad...)
	produce(t, cl, kname(d, tp), valid)
	rec := next(t, ctx, r)
	if rec["int0"] != int32(1) || rec["string0"] != "hello" {
		t.Errorf("valid record after the bad ones: int0=%v string0=%v", rec["int0"], rec["string0"])
	}
	if s := r.Stats(); s.Undecodable != uint64(len(bad)) || s.Received != uint64(len(bad)+1) || s.Delivered != 1 {
		t.Errorf("stats %+v, want %d undecodable of %d received, 1 delivered", s, len(bad), len(bad)+1)
	}

	// And the SDK's own writer still gets through.
	_, w := startWriter(t, d, comp, 1, tp)
	if _, err := w.Write(ctx, map[string]any{"int0": int32(2)}); err != nil {
		t.Fatal(err)
	}
	if rec := next(t, ctx, r); rec["int0"] != int32(2) {
		t.Errorf("SDK record after the bad ones: int0=%v", rec["int0"])
	}
}

// TestReader_SeqNumGaps: gaps in one writer's private_seqNum are counted
// as lost; other writers, a restart at 1 and the wrap at 2^31-1 are not.
func TestReader_SeqNumGaps(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	id := schemaID(t, d, tp)
	cl := rawProducer(t, d)
	snd := topics.TAI()
	send := func(p peer, seqs ...int32) {
		t.Helper()
		vals := make([][]byte, len(seqs))
		for i, s := range seqs {
			snd += 0.001
			vals[i] = frame(t, tp, id, p.record(t, tp, nil, s, snd))
		}
		produce(t, cl, kname(d, tp), vals...)
		for range seqs {
			next(t, ctx, r)
		}
	}
	a := peer{identity: "a@host", origin: 10, index: 1}
	b := peer{identity: "b@host", origin: 10, index: 1}
	c := peer{identity: "a@host", origin: 11, index: 1} // same identity, other process
	send(a, 1, 2, 5)
	if s := r.Stats(); s.Lost != 2 {
		t.Fatalf("seqNum 1, 2, 5: lost %d, want 2", s.Lost)
	}
	send(b, 7, 8)     // first records of another writer: nothing lost
	send(c, 100, 101) // another origin is another writer
	send(a, 6, 1, 2)  // a restarted writer starts again at 1
	e := peer{identity: "e@host", origin: 12, index: 1}
	send(e, math.MaxInt32-1, math.MaxInt32, 1, 2) // the wrap
	if s := r.Stats(); s.Lost != 2 {
		t.Fatalf("after other writers, a restart and a wrap: lost %d, want still 2", s.Lost)
	}
	send(a, 4)             // 3 missing after 2
	send(e, math.MaxInt32) // 3 .. 2^31-2 missing after 2
	if want := uint64(2 + 1 + (math.MaxInt32 - 3)); r.Stats().Lost != want {
		t.Fatalf("lost %d after two more gaps, want %d", r.Stats().Lost, want)
	}
}

// TestReader_OutOfOrder: an event or telemetry record older than the last
// one of the same SAL index is dropped and counted, unless the reader
// keeps out-of-order records; commands are never filtered.
func TestReader_OutOfOrder(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	cl := rawProducer(t, d)
	for _, tp := range []*salxml.Topic{comp.Telemetry("scalars"), comp.Event("scalars"), comp.Command("setScalars")} {
		t.Run(tp.Kind.String(), func(t *testing.T) {
			_, drop := startInstance(t, d, comp, 0, topics.ReaderOptions{}, tp)
			_, keep := startInstance(t, d, comp, 0, topics.ReaderOptions{KeepOutOfOrder: true}, tp)
			id := schemaID(t, d, tp)
			p1 := peer{identity: "x@host", origin: 1, index: 1}
			p2 := peer{identity: "x@host", origin: 1, index: 2}
			base := topics.TAI()
			rec := func(p peer, int0, seq int32, snd float64) *kgo.Record {
				return p.keyed(d, tp, frame(t, tp, id, p.record(t, tp, map[string]any{"int0": int0}, seq, snd)))
			}
			produceRecords(t, cl,
				rec(p1, 1, 1, base+1),
				rec(p1, 2, 2, base),   // older than 1
				rec(p2, 3, 1, base),   // older, but another index
				rec(p1, 4, 3, base+1), // same stamp as 1: kept
				rec(p1, 5, 4, base+2),
			)
			want := []int32{1, 3, 4, 5}
			wantOOO := uint64(1)
			if tp.Kind == salxml.Command {
				want, wantOOO = []int32{1, 2, 3, 4, 5}, 0
			}
			check := func(r *topics.Reader, want []int32, ooo uint64) {
				t.Helper()
				var got []int32
				for range want {
					got = append(got, next(t, ctx, r)["int0"].(int32))
				}
				if !slices.Equal(got, want) {
					t.Errorf("got int0 %v, want %v", got, want)
				}
				waitFor(t, ctx, "5 records received", func() bool { return r.Stats().Received == 5 })
				if s := r.Stats(); s.OutOfOrder != ooo || s.Queued != 0 {
					t.Errorf("stats %+v, want %d out of order and nothing more queued", s, ooo)
				}
			}
			check(drop[0], want, wantOOO)
			check(keep[0], []int32{1, 2, 3, 4, 5}, 0)
		})
	}
}

// TestReader_IndexFilter: a telemetry reader of index 2 gets only what
// writers of index 2 write, and counts the rest as filtered; a reader of
// index 0 gets everything.
func TestReader_IndexFilter(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, r2 := startInstance(t, d, comp, 2, topics.ReaderOptions{}, tp)
	_, r0 := startInstance(t, d, comp, 0, topics.ReaderOptions{}, tp)
	_, w1 := startWriter(t, d, comp, 1, tp)
	_, w2 := startWriter(t, d, comp, 2, tp)
	for i, w := range []*topics.Writer{w1, w2, w1, w1, w2} {
		if _, err := w.Write(ctx, map[string]any{"int0": int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int32{1, 4} {
		if rec := next(t, ctx, r2[0]); rec["int0"] != i || rec["salIndex"] != int32(2) {
			t.Errorf("index 2 reader: int0 %v salIndex %v, want %d and 2", rec["int0"], rec["salIndex"], i)
		}
	}
	if s := r2[0].Stats(); s.Filtered != 3 || s.Queued != 0 {
		t.Errorf("index 2 reader: stats %+v, want 3 filtered, none queued", s)
	}
	for i, idx := range []int32{1, 2, 1, 1, 2} {
		if rec := next(t, ctx, r0[0]); rec["int0"] != int32(i) || rec["salIndex"] != idx {
			t.Errorf("index 0 reader: int0 %v salIndex %v, want %d and %d", rec["int0"], rec["salIndex"], i, idx)
		}
	}
	if s := r0[0].Stats(); s.Filtered != 0 {
		t.Errorf("index 0 reader filtered %d", s.Filtered)
	}
}

// TestReader_FullQueueBlockedCallback: a callback that is blocked while
// its queue is full costs the poll goroutine a yield per record, never a
// wait: the oldest records are still dropped and counted, another topic
// of the same instance gets all of its records meanwhile, and once the
// callback returns it is handed the newest QueueLen (10) records in order.
func TestReader_FullQueueBlockedCallback(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	slowT, fastT := comp.Telemetry("scalars"), comp.Telemetry("status")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 10}, slowT, fastT)
	slow, fast := rs[0], rs[1]
	_, writers := startWriters(t, d, comp, 1, slowT, fastT)
	ws, wf := writers[0], writers[1]
	release := make(chan struct{})
	var mu sync.Mutex
	var got []int32
	slow.SetCallback(func(rec map[string]any) {
		mu.Lock()
		got = append(got, rec["int0"].(int32))
		first := len(got) == 1
		mu.Unlock()
		if first {
			<-release
		}
	})
	var fastN atomic.Int32
	fast.SetCallback(func(map[string]any) { fastN.Add(1) })

	if _, err := ws.Write(ctx, map[string]any{"int0": int32(0)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the first callback to start", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	const n = 30 // after the first: 10 queued, 20 dropped
	for i := 1; i <= n; i++ {
		if err := ws.WriteAsync(ctx, map[string]any{"int0": int32(i)}, nil); err != nil {
			t.Fatal(err)
		}
		if err := wf.WriteAsync(ctx, map[string]any{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, ctx, "every record delivered or dropped", func() bool { return slow.Stats().Delivered == n+1 })
	waitFor(t, ctx, "every record of the other topic", func() bool { return fastN.Load() == n })
	if s := slow.Stats(); s.Overflow != n-10 || s.Queued != 10 {
		t.Errorf("blocked callback: overflow %d queued %d, want %d and 10 (stats %+v)", s.Overflow, s.Queued, n-10, s)
	}
	close(release)
	waitFor(t, ctx, "the queued records", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 11 })
	mu.Lock()
	defer mu.Unlock()
	want := []int32{0}
	for i := n - 9; i <= n; i++ {
		want = append(want, int32(i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("callback got int0 %v, want %v", got, want)
	}
}

// TestReader_Callbacks: callbacks run one at a time per topic, a blocked
// callback on one topic does not hold up another topic's, records queued
// before SetCallback go to it first, SetCallback(nil) returns to the
// queue, a panicking callback does not stop delivery, and no callback
// runs once Close has returned.
func TestReader_Callbacks(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	slowT, fastT := comp.Telemetry("scalars"), comp.Telemetry("status")
	in, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 1000}, slowT, fastT)
	slow, fast := rs[0], rs[1]
	_, writers := startWriters(t, d, comp, 1, slowT, fastT)
	ws, wf := writers[0], writers[1]
	write := func(w *topics.Writer, n int) {
		t.Helper()
		for range n {
			if _, err := w.Write(ctx, map[string]any{}); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Three records queued before the callback is set come first, in order.
	write(wf, 3)
	waitFor(t, ctx, "3 records queued", func() bool { return fast.Stats().Queued == 3 })

	var mu sync.Mutex
	var fastSeqs []int32
	var fastActive, fastMax atomic.Int32
	fast.SetCallback(func(rec map[string]any) {
		n := fastActive.Add(1)
		if n > fastMax.Load() {
			fastMax.Store(n)
		}
		mu.Lock()
		fastSeqs = append(fastSeqs, rec["private_seqNum"].(int32))
		mu.Unlock()
		fastActive.Add(-1)
	})
	release := make(chan struct{})
	var slowN, slowActive, slowMax atomic.Int32
	slow.SetCallback(func(rec map[string]any) {
		n := slowActive.Add(1)
		if n > slowMax.Load() {
			slowMax.Store(n)
		}
		if slowN.Add(1) == 1 {
			<-release // the first slow callback blocks until released
		}
		slowActive.Add(-1)
	})
	fastCount := func() int { mu.Lock(); defer mu.Unlock(); return len(fastSeqs) }

	write(ws, 1)
	waitFor(t, ctx, "the slow callback to start", func() bool { return slowN.Load() == 1 })
	write(ws, 20) // queued behind the blocked callback
	write(wf, 50)
	waitFor(t, ctx, "53 fast callbacks while the slow one is blocked", func() bool { return fastCount() == 53 })
	if slowN.Load() != 1 || slowActive.Load() != 1 {
		t.Errorf("slow callback: %d calls, %d running; want the first still blocked", slowN.Load(), slowActive.Load())
	}
	close(release)
	waitFor(t, ctx, "21 slow callbacks", func() bool { return slowN.Load() == 21 })
	if slowMax.Load() != 1 || fastMax.Load() != 1 {
		t.Errorf("callbacks ran concurrently on one topic: at most %d (slow) and %d (fast) at once", slowMax.Load(), fastMax.Load())
	}
	mu.Lock()
	for i, s := range fastSeqs {
		if s != int32(i+1) {
			t.Errorf("fast callback %d got seqNum %d, want %d", i, s, i+1)
			break
		}
	}
	mu.Unlock()
	if err := fast.Flush(); err == nil {
		t.Error("Flush with a callback set: no error")
	}
	if _, err := fast.Next(ctx); err == nil {
		t.Error("Next with a callback set: no error")
	}

	// SetCallback(nil): later records are queued again.
	fast.SetCallback(nil)
	write(wf, 5)
	for i := range 5 {
		if rec := next(t, ctx, fast); rec["private_seqNum"] != int32(54+i) {
			t.Errorf("after SetCallback(nil): seqNum %v, want %d", rec["private_seqNum"], 54+i)
		}
	}
	if n := fastCount(); n != 53 {
		t.Errorf("%d callbacks after SetCallback(nil), want none", n-53)
	}

	// A panicking callback is contained.
	var after atomic.Int32
	fast.SetCallback(func(rec map[string]any) {
		if rec["private_seqNum"] == int32(59) {
			panic("callback bug")
		}
		after.Add(1)
	})
	write(wf, 2)
	waitFor(t, ctx, "the callback after a panicking one", func() bool { return after.Load() == 1 })

	// No callback after Close, while records keep arriving.
	var closed atomic.Bool
	var late atomic.Int32
	cb := func(map[string]any) {
		if closed.Load() {
			late.Add(1)
		}
	}
	slow.SetCallback(cb)
	fast.SetCallback(cb)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = ws.WriteAsync(ctx, map[string]any{}, nil)
			_ = wf.WriteAsync(ctx, map[string]any{}, nil)
			// Toggling callbacks while records arrive must not race with delivery.
			fast.SetCallback(nil)
			fast.SetCallback(cb)
		}
	}()
	waitFor(t, ctx, "more callbacks under load", func() bool { return slow.Stats().Delivered > 40 })
	in.Close()
	closed.Store(true)
	waitFor(t, ctx, "the writer to write past Close", func() bool { return ws.Stats().Written > slow.Stats().Received+20 })
	close(stop)
	<-done
	if n := late.Load(); n != 0 {
		t.Errorf("%d callbacks after Close returned", n)
	}
}

// TestReader_Partitions: telemetry topics may have more than one
// partition; readers read them all (from their ends, no history) and
// writers write to them.
func TestReader_Partitions(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	name := kname(d, tp)
	cl := rawProducer(t, d)
	cfg := map[string]*string{}
	if d.Config().Embedded {
		cfg["segment.bytes"] = kadm.StringPtr("1048576")
	}
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, 3, d.Config().Replication, cfg, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create %s with 3 partitions: %v", name, err)
	}
	id := schemaID(t, d, tp)
	p := peer{identity: "raw@host", origin: 5, index: 1}
	base := topics.TAI()
	// Written before the reader starts: telemetry reads no history.
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: name, Partition: 2, Value: frame(t, tp, id, p.record(t, tp, map[string]any{"int0": int32(-1)}, 1, base))}).FirstErr(); err != nil {
		t.Fatal(err)
	}

	// Records from different partitions interleave in any order, so the
	// out-of-order filter would drop some: keep them to count them all.
	_, rs := startInstance(t, d, comp, 0, topics.ReaderOptions{QueueLen: 1000, KeepOutOfOrder: true}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	const n = 60
	parts := map[int32]int{}
	for i := range n {
		res, err := w.Write(ctx, map[string]any{"int0": int32(i)})
		if err != nil {
			t.Fatal(err)
		}
		parts[res.Partition]++
	}
	for part := range int32(3) {
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: name, Partition: part, Value: frame(t, tp, id, p.record(t, tp, map[string]any{"int0": 1000 + part}, 2+part, base+1))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	got := map[int32]bool{}
	for range n + 3 {
		got[next(t, ctx, r)["int0"].(int32)] = true
	}
	for i := range int32(n) {
		if !got[i] {
			t.Errorf("SDK record %d not read", i)
		}
	}
	for part := range int32(3) {
		if !got[1000+part] {
			t.Errorf("raw record on partition %d not read", part)
		}
	}
	if got[-1] {
		t.Error("a record written before the reader started was read")
	}
	if s := r.Stats(); s.Received != n+3 || s.Undecodable != 0 {
		t.Errorf("stats %+v, want exactly %d received", s, n+3)
	}
	t.Logf("SDK writer spread %d records over partitions %v", n, parts)
	for part := range parts {
		if part < 0 || part > 2 {
			t.Errorf("write landed on partition %d of 3", part)
		}
	}
}

// TestReader_Duplicates: the same writer's record with the same seqNum
// again (a producer retry at acks=1 that reached the log twice) is dropped
// and counted, not delivered twice and not counted as lost.
func TestReader_Duplicates(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	id := schemaID(t, d, tp)
	a := peer{identity: "a@host", origin: 10, index: 1}
	snd := topics.TAI()
	var vals [][]byte
	for _, s := range []int32{1, 2, 2, 3, 3, 3, 4} {
		vals = append(vals, frame(t, tp, id, a.record(t, tp, nil, s, snd+float64(s)*0.001)))
	}
	produce(t, rawProducer(t, d), kname(d, tp), vals...)
	var got []int32
	for range 4 {
		got = append(got, next(t, ctx, r)["private_seqNum"].(int32))
	}
	waitFor(t, ctx, "all 7 records received", func() bool { return r.Stats().Received == 7 })
	if s := r.Stats(); s.Duplicates != 3 || s.Delivered != 4 || s.Lost != 0 || s.OutOfOrder != 0 {
		t.Errorf("seqNums 1 2 2 3 3 3 4: stats %+v, want 3 duplicates, 4 delivered, none lost or out of order", s)
	}
	if fmt.Sprint(got) != "[1 2 3 4]" {
		t.Errorf("delivered seqNums %v, want [1 2 3 4]", got)
	}
}

// TestReader_Await: Await returns the newest record at once when there is
// one, history included, and otherwise the first to arrive; the queue is
// left alone.
func TestReader_Await(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	_, w := startWriter(t, d, comp, 1, tp)
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{MaxHistory: 1}, tp)
	r := rs[0]
	short, cancel := context.WithTimeout(ctx, time.Millisecond)
	defer cancel()
	if _, err := r.Await(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Await with nothing written: %v", err)
	}
	got := make(chan map[string]any, 1)
	go func() {
		rec, err := r.Await(ctx)
		if err != nil {
			t.Error(err)
		}
		got <- rec
	}()
	if _, err := w.Write(ctx, map[string]any{"int0": int32(7)}); err != nil {
		t.Fatal(err)
	}
	if rec := <-got; rec["int0"] != int32(7) {
		t.Errorf("Await: %v", rec)
	}
	// A late joiner gets the newest from history at once.
	_, rs2 := startInstance(t, d, comp, 1, topics.ReaderOptions{MaxHistory: 1}, tp)
	if rec, err := rs2[0].Await(ctx); err != nil || rec["int0"] != int32(7) {
		t.Errorf("late joiner's Await: %v %v", rec, err)
	}
	if s := rs2[0].Stats(); s.Queued != 1 {
		t.Errorf("Await took the record from the queue: %d queued", s.Queued)
	}
}
