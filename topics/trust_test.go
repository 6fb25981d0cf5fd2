package topics_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/lsst-sal/salgo/internal/embedded"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestReader_RetriedBatch: a whole batch written twice (an acks=1
// producer retry that reached the log twice: seqNums 1..5, then the same
// five records again) is delivered once, and the repeats are counted as
// duplicates, not as out of order or lost.
func TestReader_RetriedBatch(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	id := schemaID(t, d, tp)
	p := peer{identity: "a@host", origin: 10, index: 1}
	snd := topics.TAI()
	var batch [][]byte
	for s := range int32(5) {
		batch = append(batch, frame(t, tp, id, p.record(t, tp, nil, s+1, snd+float64(s)*0.001)))
	}
	cl := rawProducer(t, d)
	produce(t, cl, kname(d, tp), batch...)
	produce(t, cl, kname(d, tp), batch...)
	// seqNum 6 comes after all ten in the partition: once it is delivered,
	// the reader has seen the repeats.
	produce(t, cl, kname(d, tp), frame(t, tp, id, p.record(t, tp, nil, 6, snd+0.01)))
	var got []int32
	for {
		seq := next(t, ctx, r)["private_seqNum"].(int32)
		got = append(got, seq)
		if seq == 6 {
			break
		}
	}
	if fmt.Sprint(got) != "[1 2 3 4 5 6]" {
		t.Errorf("delivered seqNums %v, want [1 2 3 4 5 6]", got)
	}
	if s := r.Stats(); s.Duplicates != 5 || s.OutOfOrder != 0 || s.Lost != 0 || s.Delivered != 6 {
		t.Errorf("stats %+v, want 5 duplicates, 6 delivered, none out of order or lost", s)
	}
}

// TestReader_ViolationsAfterFilter: a record that breaks a bound the
// reference does not enforce (string0 longer than its IDL_Size) is
// counted as a violation only when it is delivered, not when the index
// filter drops it.
func TestReader_ViolationsAfterFilter(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	id := schemaID(t, d, tp)
	snd := topics.TAI()
	long := func(p peer, seq int32, snd float64) []byte {
		rec := p.record(t, tp, nil, seq, snd)
		rec["string0"] = strings.Repeat("x", 30) // IDL_Size 20
		return frame(t, tp, id, rec)
	}
	other := peer{identity: "b@host", origin: 11, index: 2}
	mine := peer{identity: "a@host", origin: 10, index: 1}
	produce(t, rawProducer(t, d), kname(d, tp), long(other, 1, snd), long(mine, 1, snd+0.001))
	if rec := next(t, ctx, r); rec["salIndex"] != int32(1) {
		t.Fatalf("delivered a record of index %v", rec["salIndex"])
	}
	if s := r.Stats(); s.Filtered != 1 || s.Violations != 1 {
		t.Errorf("stats %+v, want 1 filtered and 1 violation (the delivered record's)", s)
	}
}

// TestLateJoiner_CompactedHolesNotLost: history read back from a
// compacted event topic has seqNum holes where older records of the same
// key were compacted away; they are not counted as lost. Gaps between
// live records still are.
func TestLateJoiner_CompactedHolesNotLost(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	startWriter(t, d, comp, 1, tp) // creates the topic
	id := schemaID(t, d, tp)
	p := peer{identity: "Example:1", origin: 10, index: 1}
	snd := topics.TAI()
	cl := rawProducer(t, d)
	// The kept records of a compacted log: the newest of each run of one
	// key, with the records of the same key in between compacted away.
	for i, seq := range []int32{3, 17, 40} {
		produceRecords(t, cl, p.keyed(d, tp, frame(t, tp, id, p.record(t, tp, map[string]any{"int0": seq}, seq, snd+float64(i)*0.001))))
	}
	_, rs := startInstance(t, d, comp, 0, topics.ReaderOptions{MaxHistory: 1}, tp)
	r := rs[0]
	if rec := next(t, ctx, r); rec["private_seqNum"] != int32(40) {
		t.Fatalf("history: seqNum %v, want the newest, 40", rec["private_seqNum"])
	}
	for i, seq := range []int32{41, 43} {
		produceRecords(t, cl, p.keyed(d, tp, frame(t, tp, id, p.record(t, tp, nil, seq, snd+1+float64(i)*0.001))))
		next(t, ctx, r)
	}
	if s := r.Stats(); s.Lost != 1 {
		t.Errorf("lost %d, want 1 (seqNum 42, between live records; none for the compacted holes)", s.Lost)
	}
}

// TestLateJoiner_AllRecordsDeleted: an event topic whose records were all
// deleted (low watermark == high watermark > 0) is empty: a history reader
// is caught up at once instead of waiting for an offset that never comes.
func TestLateJoiner_AllRecordsDeleted(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	// Kafka refuses to delete records of a compacted topic (the SDK's
	// event topics): make this one with the delete policy first.
	adm := kadm.NewClient(rawProducer(t, d))
	cfg := map[string]*string{"cleanup.policy": kadm.StringPtr("delete")}
	if d.Config().Embedded {
		cfg["segment.bytes"] = kadm.StringPtr("1048576")
	}
	if resp, err := adm.CreateTopic(ctx, 1, d.Config().Replication, cfg, kname(d, tp)); err != nil || resp.Err != nil {
		t.Fatalf("create %s: %v %v", kname(d, tp), err, resp.Err)
	}
	_, w := startWriter(t, d, comp, 1, tp)
	for i := range 3 {
		if _, err := w.Write(ctx, map[string]any{"int0": int32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	offs := kadm.Offsets{}
	offs.AddOffset(kname(d, tp), 0, 3, -1)
	res, err := adm.DeleteRecords(ctx, offs)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Fatalf("delete records: %v", err)
	}
	marks, err := adm.ListStartOffsets(ctx, kname(d, tp))
	if err != nil {
		t.Fatal(err)
	}
	if lo, ok := marks.Lookup(kname(d, tp), 0); !ok || lo.Offset != 3 {
		t.Fatalf("low watermark after deleting the records: %+v, want 3", lo)
	}
	in, err := d.NewInstance(comp, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := in.Reader(tp, topics.ReaderOptions{MaxHistory: 1})
	if err != nil {
		t.Fatal(err)
	}
	// ctxT's deadline only turns a hang into a failure.
	if err := in.Start(ctx); err != nil {
		t.Fatalf("start over a topic with all records deleted: %v", err)
	}
	if rec := r.TryNext(); rec != nil {
		t.Errorf("a record from a topic with no records: %v", rec)
	}
}

// TestStart_CloseUnblocks: Close ends a Start that is waiting for history
// (here: the broker never answers a fetch), which returns ErrClosed.
func TestStart_CloseUnblocks(t *testing.T) {
	cfg := testConfig(t, salxml.Embedded())
	if !cfg.Embedded {
		t.Skip("needs the embedded broker, to hold its fetches: LSST_KAFKA_BROKER_ADDR is set")
	}
	c, err := embedded.Start(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cfg.Brokers, cfg.RegistryURL = c.Brokers(), c.RegistryURL()
	d, err := topics.NewDomain(ctxT(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	_, w := startWriter(t, d, comp, 1, tp)
	if _, err := w.Write(ctx, map[string]any{"int0": int32(1)}); err != nil {
		t.Fatal(err)
	}
	held := make(chan struct{})
	var once sync.Once
	c.Kafka().ControlKey(kmsg.Fetch.Int16(), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.Kafka().KeepControl()
		once.Do(func() { close(held) })
		return nil, nil, true // no answer: the fetch hangs
	})
	in, err := d.NewInstance(comp, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Reader(tp, topics.ReaderOptions{MaxHistory: 1}); err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() { started <- in.Start(ctx) }()
	select {
	case <-held:
	case <-ctx.Done():
		t.Fatal("the reader never fetched")
	}
	in.Close()
	select {
	case err := <-started:
		if !errors.Is(err, topics.ErrClosed) {
			t.Errorf("Start cut short by Close: %v, want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Start still waiting after Close")
	}
}

// TestWriter_ConcurrentSetWrite: SetWrite from several goroutines at once
// reaches the bus in the order the data changed, so the newest record on
// the bus always equals the writer's data.
func TestWriter_ConcurrentSetWrite(t *testing.T) {
	const goroutines, rounds = 4, 1000
	d := newDomain(t, nil)
	comp := example(t, d)
	// 4000 acknowledged writes and reads: more than ctxT's minute may pass
	// under -race on a loaded machine (a guard, not a measure).
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	tp := comp.Event("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 1000}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	bad := 0
	for round := range rounds {
		var wg sync.WaitGroup
		for g := range goroutines {
			wg.Go(func() {
				if _, err := w.SetWrite(context.Background(), map[string]any{"int0": int32(round*goroutines + g)}, true); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		var last map[string]any
		for range goroutines {
			last = next(t, ctx, r)
		}
		if last["int0"] != w.Data()["int0"] {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("in %d of %d rounds the newest record on the bus differs from the writer's data", bad, rounds)
	}
	if s := r.Stats(); s.OutOfOrder != 0 || s.Lost != 0 {
		t.Errorf("reader stats %+v: want nothing out of order or lost", s)
	}
}

// TestWriter_EndedCtxRefused: a write whose ctx has ended is refused at
// once (an error matching the ctx's), takes no sequence number, and
// fails no other record: the writes around it reach the bus, numbered
// one after the other, and the reader counts nothing lost.
func TestWriter_EndedCtxRefused(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := w.Write(ctx, map[string]any{"int0": int32(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(ended, map[string]any{"int0": int32(2)}); !errors.Is(err, context.Canceled) {
		t.Errorf("write with an ended ctx: %v, want context.Canceled", err)
	}
	if _, err := w.Write(ctx, map[string]any{"int0": int32(3)}); err != nil {
		t.Fatalf("the write after: %v", err)
	}
	a, b := next(t, ctx, r), next(t, ctx, r)
	if a["int0"] != int32(1) || b["int0"] != int32(3) {
		t.Errorf("read int0 %v then %v, want 1 then 3", a["int0"], b["int0"])
	}
	if sa, sb := a["private_seqNum"].(int32), b["private_seqNum"].(int32); sb != sa+1 {
		t.Errorf("seqNums %d then %d: the refused write took a number", sa, sb)
	}
	if s := r.Stats(); s.Lost != 0 {
		t.Errorf("reader counted %d lost", s.Lost)
	}
}

// TestWriter_GivenStampsChecked: a record that holds a value for a field
// the writer stamps is refused when that value could not be the field's
// (a string for private_seqNum, a number for private_identity) or is a
// salIndex other than the writer's, with an error naming the field; a
// value of the right kind, or a salIndex of 0 (the default) or the
// writer's own, is stamped over without a word. They used to be
// overwritten in silence, whatever they were.
func TestWriter_GivenStampsChecked(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	_, w := startWriter(t, d, comp, 1, comp.Event("scalars"))
	for _, c := range []struct {
		field string
		value any
		want  error // nil: written
		text  string
	}{
		{"private_seqNum", "x", validate.ErrType, "field private_seqNum: validate: wrong type: string x given for a int32 field that the writer stamps"},
		{"private_sndStamp", "now", validate.ErrType, "field private_sndStamp"},
		{"private_identity", 7, validate.ErrType, "field private_identity"},
		{"private_origin", 1.5, validate.ErrType, "field private_origin"},
		{"salIndex", int32(2), topics.ErrWrongIndex, "field salIndex: topics: salIndex is not the writer's: 2 given, the writer's index is 1"},
		{"salIndex", "1", validate.ErrType, "field salIndex"},
		{"salIndex", int32(0), nil, ""},
		{"salIndex", 1, nil, ""},
		{"salIndex", 1.0, nil, ""},
		{"private_seqNum", 12, nil, ""},
		{"private_sndStamp", 3, nil, ""},
		{"private_identity", "someone@else", nil, ""},
	} {
		_, err := w.Write(ctx, map[string]any{"int0": int32(1), c.field: c.value})
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s=%#v: %v, want it written", c.field, c.value, err)
		case c.want != nil && (!errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.text)):
			t.Errorf("%s=%#v: %v, want an error matching %v and saying %q", c.field, c.value, err, c.want, c.text)
		}
	}
}
