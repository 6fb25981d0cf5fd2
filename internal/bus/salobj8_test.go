package bus_test

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/lsst-sal/salgo/internal/bus"
	"github.com/lsst-sal/salgo/internal/wirefixture"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestSalobj8_CommandSeqNums holds NewSeqNums to the command seqNums the
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
	s := bus.NewSeqNums(names, rand.New(rand.NewPCG(7, 8)))
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
			t.Errorf("line %d: %s seqNum %d is outside NewSeqNums' slice %d..%d", r.Line, tp.Name(), seq, lo, hi)
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
