package main

import (
	"errors"
	"testing"

	"github.com/lsst-sal/salgo/sal"

	salxml "github.com/lsst-sal/salgo/xml"
)

func topRecord(topic string, seq, index int, ident string) sal.TapRecord {
	return sal.TapRecord{Topic: "lsst.sal.Example." + topic, Size: 100, Value: map[string]any{
		"private_seqNum": seq, "private_origin": 7, "private_identity": ident, "salIndex": index,
		"private_sndStamp": sal.TAI() - 0.001,
	}}
}

// TestTopCounts checks drops by seqNum gaps per writer, undecodable
// records, the index filter and the order of the rows.
func TestTopCounts(t *testing.T) {
	tp := &topper{prefix: "lsst.sal.Example.", index: 1, hasIdx: true, stats: map[string]*topStat{}, last: map[writerKey]int64{}}
	for _, seq := range []int{1, 2, 5, 6} { // 3 and 4 lost
		tp.add(topRecord("scalars", seq, 1, "a"))
	}
	for _, seq := range []int{1, 2, 3, 1} { // another writer, restarted: no loss
		tp.add(topRecord("scalars", seq, 1, "b"))
	}
	tp.add(topRecord("scalars", 9, 2, "a")) // another SAL index: not counted
	for _, seq := range []int{10, 10, 12} { // acks: seqNum is the command's
		tp.add(topRecord("ackcmd", seq, 1, "a"))
	}
	tp.add(sal.TapRecord{Topic: "lsst.sal.Example.logevent_arrays", Size: 30, Err: errors.New("bad schema id")})
	var rep topReport
	tp.snapshot(&rep, 2, 10)
	if len(rep.Rows) != 3 || rep.Active != 2 {
		t.Fatalf("rows %+v, active %d; want scalars, ackcmd, logevent_arrays; 2 active", rep.Rows, rep.Active)
	}
	s, a, e := rep.Rows[0], rep.Rows[1], rep.Rows[2]
	if s.Topic != "scalars" || s.Records != 8 || s.RateHz != 4 || s.BytesPerSec != 400 || s.Drops != 2 || s.DropsTotal != 2 {
		t.Errorf("scalars: %+v, want 8 records at 4 Hz, 400 B/s, 2 drops", s)
	}
	if s.LatencyP50 == nil || *s.LatencyP50 <= 0 || *s.LatencyMax < *s.LatencyP50 {
		t.Errorf("scalars: latency p50 %v max %v", s.LatencyP50, s.LatencyMax)
	}
	if a.Topic != "ackcmd" || a.Records != 3 || a.Drops != 0 {
		t.Errorf("ackcmd: %+v, want 3 records, no drops", a)
	}
	if e.Topic != "logevent_arrays" || e.Records != 0 || e.Drops != 1 || e.LatencyP50 != nil {
		t.Errorf("undecodable: %+v, want 1 drop, no record, no latency", e)
	}
	// The next interval starts afresh; totals stay.
	tp.add(topRecord("scalars", 7, 1, "a"))
	tp.snapshot(&rep, 1, 1)
	if len(rep.Rows) != 1 || rep.Rows[0].Topic != "scalars" || rep.Rows[0].Drops != 0 || rep.Rows[0].DropsTotal != 2 || rep.Rows[0].Records != 9 || rep.Rows[0].RateHz != 1 {
		t.Errorf("second interval, -n 1: %+v", rep.Rows)
	}
}

func TestWeighted(t *testing.T) {
	c, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, tp := range weighted(c.Topics) {
		n[tp.SALName]++
	}
	if n["scalars"] != 8 || n["arrays"] != 4 || n["status"] != 2 || n["logevent_summaryState"] != 1 {
		t.Errorf("weights %v", n)
	}
}
