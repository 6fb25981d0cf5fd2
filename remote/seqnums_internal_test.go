package remote

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/lsst-sal/salgo/internal/wirefixture"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestSeqNums_ReferenceSlices checks the slices of the reference's Test
// component (10 commands): disable 1..214748364, ..., wait 1932735277..2147483640.
func TestSeqNums_ReferenceSlices(t *testing.T) {
	cmds := []string{"wait", "setScalars", "setLogLevel", "fault", "start", "standby", "setArrays", "exitControl", "enable", "disable"}
	s := newSeqNums(cmds, rand.New(rand.NewPCG(1, 2)))
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

// TestSalobj8_CommandSeqNums holds newSeqNums to the command seqNums the
// real ts_salobj 8.2.12 Remote wrote (the salobj8-wire fixture): for each
// of Test's 10 commands, sorted, the slice is [i*214748364+1,
// (i+1)*214748364]; every command record lies in its command's slice and
// the commands of one name follow each other (+1 per command).
func TestSalobj8_CommandSeqNums(t *testing.T) {
	defs, err := salxml.Open(wirefixture.XMLDir(t))
	if err != nil {
		t.Fatal(err)
	}
	comp, err := defs.Component(wirefixture.Component)
	if err != nil {
		t.Fatal(err)
	}
	names := comp.CommandNames()
	if want := []string{"disable", "enable", "exitControl", "fault", "setArrays", "setLogLevel", "setScalars", "standby", "start", "wait"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("CommandNames %v, want %v", names, want)
	}
	s := newSeqNums(names, rand.New(rand.NewPCG(7, 8)))
	const width = (1<<31 - 1) / 10
	for i, n := range names {
		lo, hi, ok := s.Range(n)
		if !ok || lo != int32(i*width+1) || hi != int32((i+1)*width) {
			t.Errorf("%s: slice %d..%d (%v), want %d..%d", n, lo, hi, ok, i*width+1, (i+1)*width)
		}
	}
	seqs := map[string][]int64{} // by command, in offset order
	recs := wirefixture.Records(t)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Offset < recs[j].Offset })
	for _, r := range recs {
		tp := comp.Topic(r.SALName())
		if tp == nil || tp.Kind != salxml.Command {
			continue
		}
		seq := r.Int(t, "private_seqNum")
		lo, hi, ok := s.Range(tp.Name())
		if !ok || seq < int64(lo) || seq > int64(hi) {
			t.Errorf("line %d: %s seqNum %d is outside newSeqNums' slice %d..%d", r.Line, tp.Name(), seq, lo, hi)
		}
		seqs[tp.Name()] = append(seqs[tp.Name()], seq)
	}
	total := 0
	for n, ss := range seqs {
		total += len(ss)
		for i := 1; i < len(ss); i++ {
			if ss[i] != ss[i-1]+1 {
				t.Errorf("%s: seqNums %v do not follow each other", n, ss)
				break
			}
		}
	}
	if total != 16 || len(seqs["setScalars"]) != 7 {
		t.Errorf("%d command records (%d setScalars), want 16 (7)", total, len(seqs["setScalars"]))
	}
}
