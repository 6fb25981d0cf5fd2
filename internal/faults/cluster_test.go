package faults

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestLeaderFailover kills the partition leader of a three-node cluster
// (replication factor 3, min.insync.replicas 2) while two writers stream
// MTM1M3 forceActuatorData at 1 kHz each into the same topic, one at
// acks=all with the idempotent producer, one at acks=1, each on its own
// Bus. acks=all loses and duplicates nothing; whatever acks=1 loses (the
// records the old leader acknowledged before its followers had them) is
// counted by the reader. The pause is reported.
func TestLeaderFailover(t *testing.T) {
	e := needFaults(t)
	c := e.startCluster(t, 3)
	t.Setenv(topics.EnvReplication, "3")
	sub := subname(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	type writer struct {
		acks, identity string
		st             *stream
		arr            *arrivals
		logs           *logCapture
		bus            *sal.Bus
	}
	var ws []*writer
	var rd *topics.Reader
	var tp *salxml.Topic
	for _, acks := range []string{"all", "1"} {
		w := &writer{acks: acks, identity: "faults-acks-" + acks, arr: newArrivals(), logs: &logCapture{}}
		t.Cleanup(func() { w.logs.report(t) })
		bus := e.connect(t, c.addrs, acks, sub, w.logs)
		comp, err := bus.Component("MTM1M3")
		if err != nil {
			t.Fatal(err)
		}
		tp = comp.Telemetry("forceActuatorData")
		in, err := bus.NewInstance(comp, 0, w.identity)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(in.Close)
		tw, err := in.Writer(tp)
		if err != nil {
			t.Fatal(err)
		}
		if acks == "all" {
			// The reader, on the first Bus. It keeps records older than the
			// last one: the two writers' stamps interleave in the topic.
			rin, err := bus.NewInstance(comp, 0, "faults-reader")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(rin.Close)
			if rd, err = rin.Reader(tp, topics.ReaderOptions{QueueLen: 20000, KeepOutOfOrder: true}); err != nil {
				t.Fatal(err)
			}
			if err := rin.Start(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := in.Start(ctx); err != nil {
			t.Fatal(err)
		}
		w.st, w.bus = newStream(tw, telemetryRate), bus
		ws = append(ws, w)
	}
	byIdentity := map[string]*arrivals{}
	for _, w := range ws {
		byIdentity[w.identity] = w.arr
	}
	rd.SetCallback(func(rec map[string]any) {
		id, _ := rec["private_identity"].(string)
		if a := byIdentity[id]; a != nil {
			a.add(rec)
		}
	})
	for _, w := range ws {
		go w.st.run(t)
	}
	halted := false
	halt := func() {
		if !halted {
			halted = true
			for _, w := range ws {
				w.st.halt()
			}
		}
	}
	defer halt()

	topic := tp.KafkaName(sub)
	leader, isr, err := c.leader(topic) // a JVM start: the streams run meanwhile
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if !waitFor(time.Minute, func() bool { return w.arr.unique() >= 2*telemetryRate }) {
			t.Fatalf("acks=%s, before the fault: the reader got %d records within a minute", w.acks, w.arr.unique())
		}
	}
	t.Logf("%s: leader node %d (%s)", topic, leader, isr)

	tKill := time.Now()
	c.must("node-kill", strconv.Itoa(leader), c.dir)
	type described struct {
		leader int
		isr    string
		err    error
	}
	after := make(chan described, 1)
	atKill := ws[0].st.lastSeq.Load()
	go func() { // the new leader, once records flow again, while the streams run on
		waitFor(90*time.Second, func() bool { return ws[0].arr.newest() > atKill+10 })
		l, isr, err := c.leader(topic)
		after <- described{l, isr, err}
	}()
	for _, w := range ws {
		seqAtKill := w.st.lastSeq.Load()
		if !waitFor(90*time.Second, func() bool { return w.arr.newest() >= seqAtKill+3*telemetryRate }) {
			t.Errorf("acks=%s: the reader did not get records written after the leader was killed within 90 s (newest seqNum %d, kill at %d)",
				w.acks, w.arr.newest(), seqAtKill)
		}
	}
	recovered := time.Since(tKill)
	if d := <-after; d.err != nil {
		t.Error(d.err)
	} else {
		t.Logf("after killing node %d: leader node %d (%s)", leader, d.leader, d.isr)
		if d.leader == leader {
			t.Errorf("the leader is still node %d after it was killed", d.leader)
		}
	}
	halt()

	var missing uint64
	var tls []tally
	for _, w := range ws {
		tl := settle(t, w.acks, w.bus, w.st, w.arr)
		tls = append(tls, tl)
		missing += uint64(tl.ackedMissing + tl.failedMissing)
	}
	stats := rd.Stats()
	t.Logf("ReaderStats (both writers): %+v", stats)
	for i, w := range ws {
		judge(t, w.acks, tls[i], stats)
	}
	if stats.Lost != missing {
		t.Errorf("ReaderStats.Lost = %d, but %d records of the two writers are missing below the newest received: a silent loss or a miscount", stats.Lost, missing)
	}
	t.Logf("leader failover pause (acks=all): longest silence at the reader %.2f s, slowest acknowledgement %.2f s; records written 3 s after the kill had arrived %.1f s after it",
		tls[0].maxGap.Seconds(), tls[0].maxLat.Seconds(), recovered.Seconds())
}
