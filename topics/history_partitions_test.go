package topics_test

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/lsst-sal/salgo/topics"
)

// TestReader_HistoryPerPartition: a foreign event topic with two
// partitions, history in both. Each partition reads its history, then
// its live records: once partition 0 has read its history, that history
// is delivered and partition 0's next record is delivered live, while
// partition 1 is still reading history; partition 1's history follows
// when it is read, and Start returns then.
//
// Partition 1's history also holds an older record of SAL index 1, as
// an event topic whose partitions were added to may (a key's partition
// changes): it is not delivered after partition 0's newer ones.
//
// Partition 1 is held in history by a transaction left open: its record
// counts in the high watermark the reader's history waits for, but a
// read_committed consumer gets it only once the transaction commits.
func TestReader_HistoryPerPartition(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("scalars")
	name := kname(d, tp)
	cl := rawProducer(t, d)
	cfg := map[string]*string{}
	if d.Config().Embedded {
		cfg["segment.bytes"] = kadm.StringPtr("1048576")
	}
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, 2, d.Config().Replication, cfg, name)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		t.Fatalf("create %s with 2 partitions: %v", name, err)
	}
	id := schemaID(t, d, tp)
	a := peer{identity: "a@host", origin: 11, index: 1}
	b := peer{identity: "b@host", origin: 12, index: 2}
	old := peer{identity: "old@host", origin: 13, index: 1}
	base := topics.TAI()
	rec := func(p peer, part, seq int32) *kgo.Record {
		kr := p.keyed(d, tp, frame(t, tp, id, p.record(t, tp, map[string]any{"int0": 100*p.index + seq}, seq, base+float64(seq))))
		kr.Partition = part
		return kr
	}
	produceRecords(t, cl, rec(a, 0, 1), rec(a, 0, 2), rec(old, 1, 0), rec(b, 1, 1), rec(b, 1, 2))
	txn, err := kgo.NewClient(kgo.SeedBrokers(d.Config().Brokers...), kgo.TransactionalID("txn-"+name),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(txn.Close)
	if err := txn.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := txn.ProduceSync(ctx, rec(b, 1, 3)).FirstErr(); err != nil {
		t.Fatalf("produce in a transaction: %v", err)
	}

	rcfg := d.Config()
	rcfg.KafkaConsumer = map[string]any{"isolation.level": "read_committed"}
	rd, err := topics.NewDomain(ctx, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	in, err := rd.NewInstance(example(t, rd), 0, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := in.Reader(example(t, rd).Event("scalars"), topics.ReaderOptions{MaxHistory: 1})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() { started <- in.Start(ctx) }()
	t.Cleanup(func() {
		in.Close()
		<-started
	})
	var got []string // salIndex/seqNum of the records delivered, in order
	take := func() []string {
		for rec := r.TryNext(); rec != nil; rec = r.TryNext() {
			got = append(got, fmt.Sprintf("%d/%d", rec["salIndex"], rec["private_seqNum"]))
		}
		return got
	}
	// Records are handled one at a time, in fetch order: once the
	// reader received a partition's next record, the one before it
	// went through the reader.
	received := func(n uint64) func() bool { return func() bool { return r.Stats().Received == n } }

	waitFor(t, ctx, "the 5 committed historical records received", received(5))
	produceRecords(t, cl, rec(a, 0, 3), rec(a, 0, 4))
	waitFor(t, ctx, "partition 0's live records received", received(7))
	select {
	case <-in.Ready():
		t.Fatal("ready while partition 1 has not read its last historical record")
	default:
	}
	if take(); len(got) < 2 || fmt.Sprint(got[:2]) != "[1/2 1/3]" || r.Stats().Historical != 1 {
		t.Errorf("partition 1 in history: delivered %v (salIndex/seqNum), stats %+v; want partition 0's history 1/2, then its live records from 1/3 on, delivered live", got, r.Stats())
	}

	if err := txn.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-started:
		started <- err
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("Start never returned after partition 1's history was committed (stats %+v)", r.Stats())
	}
	produceRecords(t, cl, rec(b, 1, 4), rec(b, 1, 5))
	waitFor(t, ctx, "partition 1's live records received", received(10))
	if take(); len(got) < 5 || fmt.Sprint(got[:5]) != "[1/2 1/3 1/4 2/3 2/4]" || r.Stats().Historical != 2 {
		t.Errorf("after partition 1's history: delivered %v, stats %+v; want partition 1's history 2/3 after partition 0's records, then its live records from 2/4 on", got, r.Stats())
	}
}
