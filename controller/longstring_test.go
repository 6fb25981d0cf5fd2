package controller_test

import (
	"context"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/topics"
)

// TestController_LongStrings: a command whose strings are longer than
// their IDL_Size, as a Python Remote sends them (ts_salobj does not bound
// strings over Kafka), is handled like any other: its handler sees the
// whole string, the ack is CMD_COMPLETE, and the violation is counted.
// What ts_salobj cannot read either (a string that is not UTF-8) is still
// refused.
func TestController_LongStrings(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	got := make(chan string, 10)
	c := startController(t, d, 1, map[string]controller.HandlerFunc{
		"setScalars": func(_ context.Context, cmd *controller.Command) error {
			got <- cmd.Data["string0"].(string)
			return nil
		},
	})
	comp := c.Component()
	in, err := d.NewInstance(comp, 1, "python@host")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	acks, err := in.Reader(comp.Ack(), topics.ReaderOptions{QueueLen: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	peer := testbus.NewPeer(t, d, "python@host", 1, 1)
	cmd := comp.Command("setScalars")
	long := []string{strings.Repeat("a", 21), strings.Repeat("é", 5000)} // 21 bytes, 10 KB; the bound is 20
	for i, s := range long {
		peer.Write(cmd, peer.Record(cmd, map[string]any{"private_seqNum": int32(10 + i), "string0": s}))
	}
	peer.Write(cmd, peer.Record(cmd, map[string]any{"private_seqNum": int32(12), "string0": "\xff"}))
	codes := map[int32]*topics.Ack{}
	for len(codes) < 3 {
		rec, err := acks.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a := topics.AckFromRecord(rec)
		codes[a.SeqNum] = a
	}
	for i, s := range long {
		if a := codes[int32(10+i)]; a.Code != topics.CmdComplete {
			t.Errorf("a %d-byte string0: %s %q, want CMD_COMPLETE", len(s), a.Code, a.Result)
		}
		select {
		case h := <-got:
			if h != s {
				t.Errorf("the handler saw %d bytes of a %d-byte string0", len(h), len(s))
			}
		default:
			t.Errorf("the handler did not see the %d-byte string0", len(s))
		}
	}
	if a := codes[12]; a.Code != topics.CmdFailed || !strings.Contains(a.Result, "invalid command data: 1 violation (1 encoding)") {
		t.Errorf("a string0 that is not UTF-8: %s %q, want CMD_FAILED", a.Code, a.Result)
	}
	if s := c.Stats(); s.LongStrings != 2 || s.Rejected != 1 || s.Completed != 2 {
		t.Errorf("stats %+v: want 2 long strings, 1 rejected, 2 completed", s)
	}
}
