package topics_test

import (
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

// TestReader_ChecksWhatItDecodes: the read-side check holds on the path
// where the reader's own decoder vouches for a record (codec.Watch): an
// array of the wrong length and a string that is not UTF-8 are each
// delivered and counted as a violation, a valid record is not, and a
// record handed back with a key of the application's own is checked
// again once decoded into (the key is unknown to the topic).
func TestReader_ChecksWhatItDecodes(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	arrays, scalars := comp.Telemetry("arrays"), comp.Telemetry("scalars")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, arrays, scalars)
	ra, rsc := rs[0], rs[1]
	p := peer{identity: "a@host", origin: 10, index: 1}
	snd := topics.TAI()
	prod := rawProducer(t, d)
	idA, idS := schemaID(t, d, arrays), schemaID(t, d, scalars)

	short := p.record(t, arrays, nil, 1, snd)
	short["float0"] = []float32{1, 2, 3, 4} // Count 5
	produce(t, prod, kname(d, arrays), frame(t, arrays, idA, short), frame(t, arrays, idA, p.record(t, arrays, nil, 2, snd+0.001)))
	waitFor(t, ctx, "2 arrays records", func() bool { return ra.Stats().Delivered == 2 })
	if s := ra.Stats(); s.Violations != 1 {
		t.Errorf("arrays: stats %+v, want 1 violation (the short array)", s)
	}

	bad := p.record(t, scalars, nil, 1, snd)
	bad["string0"] = "ab\xffcd"
	produce(t, prod, kname(d, scalars), frame(t, scalars, idS, bad), frame(t, scalars, idS, p.record(t, scalars, nil, 2, snd+0.001)))
	first := next(t, ctx, rsc)
	next(t, ctx, rsc)
	if s := rsc.Stats(); s.Violations != 1 || s.Delivered != 2 {
		t.Errorf("scalars: stats %+v, want 2 delivered, 1 violation (the bad string)", s)
	}
	first["mine"] = true
	rsc.Recycle(first)
	produce(t, prod, kname(d, scalars), frame(t, scalars, idS, p.record(t, scalars, nil, 3, snd+0.002)))
	if rec := next(t, ctx, rsc); !same(rec, first) {
		t.Fatal("the record handed back was not decoded into")
	}
	if s := rsc.Stats(); s.Violations != 2 {
		t.Errorf("scalars: stats %+v, want a 2nd violation (the unknown key of the recycled map)", s)
	}
}
