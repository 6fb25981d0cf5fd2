package embedded

import (
	"context"
	"encoding/binary"
	"net"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

// TestLeakBaseline_BrokerHoldsAClosedConnectionsFetch: a client that hung
// up while the broker held its long-poll fetch, with another request
// queued behind it on the same connection, leaves the broker's side of
// that connection running until the fetch's MaxWait ends (the broker
// answers a connection's requests in order). Those goroutines are the
// broker's, not the client's: a baseline check of the client's goroutines
// passes while the broker still holds the fetch. (franz-go queues such a
// request when it restarts a fetch session; TestRunCSC_SignalMatrix
// failed on it.)
func TestLeakBaseline_BrokerHoldsAClosedConnectionsFetch(t *testing.T) {
	c, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const topic = "leak_long_poll"
	admin, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	create := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = topic, 1, 1
	create.Topics = append(create.Topics, ct)
	_, err = create.RequestWith(ctx, admin)
	admin.Close()
	if err != nil {
		t.Fatal(err)
	}

	base := leaktest.Begin()
	conn, err := net.Dial("tcp", c.Brokers()[0])
	if err != nil {
		t.Fatal(err)
	}
	// A fetch at the end of the empty topic, held for 30 s, then a
	// request the broker reads but must not answer before the fetch.
	fetch := kmsg.NewPtrFetchRequest()
	fetch.SetVersion(11)
	fetch.ReplicaID, fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes = -1, 30_000, 1, 1<<20
	fetch.SessionEpoch = -1
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = topic
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.CurrentLeaderEpoch, fp.LogStartOffset, fp.PartitionMaxBytes = -1, -1, 1<<20
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	versions := kmsg.NewPtrApiVersionsRequest()
	var out []byte
	for corr, req := range []kmsg.Request{fetch, versions} {
		out = appendRequest(out, req, int32(corr))
	}
	if _, err := conn.Write(out); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// The broker has read both once its reader for the connection waits
	// for the fetch's answer instead of reading on.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !queuedBehindFetch() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("the broker never read the request queued behind the fetch")
		}
	}
	base.Verify(t)
}

// queuedBehindFetch reports whether a broker connection's reader has
// stopped reading (its socket-reading goroutine, read.func1, is gone)
// although the reader itself runs on: it has a request queued behind one
// not yet answered. It holds for one connection at a time only.
func queuedBehindFetch() bool {
	var sb strings.Builder
	pprof.Lookup("goroutine").WriteTo(&sb, 1)
	all := sb.String()
	return strings.Contains(all, "kfake.(*clientConn).read+") && !strings.Contains(all, "kfake.(*clientConn).read.func1")
}

// appendRequest appends req framed as a client sends it: size, key,
// version, correlation id, a null client id, the body.
func appendRequest(dst []byte, req kmsg.Request, corr int32) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	dst = append(dst, 0xff, 0xff) // null client id
	dst = req.AppendTo(dst)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(dst)-start-4))
	return dst
}

// TestLeakBaseline_OpenClientReported: the baseline check still reports a
// client left open (the broker's side of its connection aside, the
// client's own goroutines wait on the socket and its timers).
func TestLeakBaseline_OpenClientReported(t *testing.T) {
	c, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	base := leaktest.Begin()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Brokers()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec := &recordTB{TB: t}
	base.Verify(rec)
	if !rec.failed {
		t.Error("a client left open was not reported")
	}
}

// recordTB notes a failure instead of failing the test.
type recordTB struct {
	testing.TB
	failed bool
}

func (r *recordTB) Error(...any)          { r.failed = true }
func (r *recordTB) Errorf(string, ...any) { r.failed = true }
