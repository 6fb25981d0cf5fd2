package bus_test

import (
	"math/rand/v2"
	"testing"

	"github.com/lsst-sal/salgo/internal/bus"
)

// TestSeqNums_ReferenceSlices checks the slices of the reference's Test
// component (10 commands): disable 1..214748364, ..., wait 1932735277..2147483640.
func TestSeqNums_ReferenceSlices(t *testing.T) {
	cmds := []string{"wait", "setScalars", "setLogLevel", "fault", "start", "standby", "setArrays", "exitControl", "enable", "disable"}
	s := bus.NewSeqNums(cmds, rand.New(rand.NewPCG(1, 2)))
	for name, want := range map[string][2]int32{
		"disable": {1, 214748364},
		"enable":  {214748365, 429496728},
		"wait":    {1932735277, 2147483640},
	} {
		lo, hi, ok := s.Range(name)
		if !ok || lo != want[0] || hi != want[1] {
			t.Errorf("%s: %d..%d, want %d..%d", name, lo, hi, want[0], want[1])
		}
	}
	// Consecutive, within the slice, wrapping, never <= 0.
	lo, hi, _ := s.Range("wait")
	prev, _ := s.Next("wait")
	for range 3 * 1000 {
		v, _ := s.Next("wait")
		if v <= 0 || v < lo || v > hi || (v != prev+1 && !(prev == hi && v == lo)) {
			t.Fatalf("after %d: %d", prev, v)
		}
		prev = v
	}
	if _, ok := s.Next("nope"); ok {
		t.Error("unknown command has a sequence")
	}
}

func TestAckCode_Classes(t *testing.T) {
	for _, c := range []bus.AckCode{bus.CmdAborted, bus.CmdComplete, bus.CmdFailed, bus.CmdNoAck, bus.CmdNoPerm, bus.CmdStalled, bus.CmdTimeout} {
		if !c.Final() {
			t.Errorf("%s not final", c)
		}
		if c.Failed() != (c != bus.CmdComplete) {
			t.Errorf("%s failed=%v", c, c.Failed())
		}
	}
	for _, c := range []bus.AckCode{bus.CmdAck, bus.CmdInProgress} {
		if c.Final() || c.Failed() {
			t.Errorf("%s is final", c)
		}
	}
	if bus.CmdInProgress.String() != "CMD_INPROGRESS" || bus.AckCode(5).String() != "AckCode(5)" {
		t.Error("names")
	}
}
