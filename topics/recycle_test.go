package topics_test

import (
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/lsst-sal/salgo/topics"
)

func same(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// TestReader_Recycle: a record handed back is decoded into again, its
// arrays overwritten in place, and comes back holding the new record's
// values; the newest record (what Get returns) is taken back only once a
// newer one arrived.
func TestReader_Recycle(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("arrays")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	write := func(i int) {
		t.Helper()
		v := float32(i)
		if _, err := w.Write(ctx, map[string]any{"float0": []float32{v, v, v, v, v}, "int0": []int32{int32(i), 0, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		write(i)
	}
	waitFor(t, ctx, "2 records delivered", func() bool { return r.Stats().Delivered == 2 })
	first := next(t, ctx, r)
	kept := first["float0"].([]float32)
	if kept[0] != 0 {
		t.Fatalf("first record: float0 %v", kept)
	}
	r.Recycle(first)
	write(2)
	second, third := next(t, ctx, r), next(t, ctx, r)
	if second["float0"].([]float32)[0] != 1 || third["float0"].([]float32)[0] != 2 {
		t.Fatalf("float0 of the 2nd and 3rd records: %v %v", second["float0"], third["float0"])
	}
	if !same(third, first) {
		t.Fatal("the record written after Recycle was decoded into a new map, not the recycled one")
	}
	// The receive stamp is the reader's, in a recycled record too.
	for i, rec := range []map[string]any{second, third} {
		if snd, rcv := rec["private_sndStamp"].(float64), rec["private_rcvStamp"].(float64); rcv < snd || snd <= 0 {
			t.Errorf("record %d: private_sndStamp %v, private_rcvStamp %v: want a receive stamp after the send", i+2, snd, rcv)
		}
	}
	// In place: the slice taken before Recycle now holds the new values
	// (which is why the caller must not use it after Recycle).
	if !slices.Equal(kept, []float32{2, 2, 2, 2, 2}) || first["int0"].([]int32)[0] != 2 {
		t.Errorf("recycled record after the next decode: float0 %v int0 %v, want the 3rd record's", kept, first["int0"])
	}
	// The newest record is taken back only once a newer one arrives,
	// since until then Get may return it. (Had Get returned it, it would
	// never be taken back: see TestReader_RecycleShared.)
	r.Recycle(third)
	write(3)
	fourth := next(t, ctx, r)
	if same(fourth, third) {
		t.Fatal("the newest record was decoded into while Get still returned it")
	}
	if third["float0"].([]float32)[0] != 2 {
		t.Errorf("the newest record changed before a newer one arrived: float0 %v", third["float0"])
	}
	write(4)
	fifth := next(t, ctx, r)
	if !same(fifth, third) || fifth["float0"].([]float32)[0] != 4 {
		t.Errorf("the record after next: float0 %v, recycled map %v; want 4 in the newest record handed back earlier", fifth["float0"], same(fifth, third))
	}

	// Records of another topic are not taken back: decoded into, they
	// would keep that topic's fields. Nor are nil and empty ones.
	other := maps.Clone(fourth)
	other["private_revCode"] = comp.Telemetry("scalars").RevCode()
	r.Recycle(other)
	r.Recycle(nil)
	r.Recycle(map[string]any{})
	write(5)
	if sixth := next(t, ctx, r); same(sixth, other) {
		t.Error("a record with another topic's revCode was decoded into")
	}
}

// TestReader_RecycleStream: a consumer that hands every record back as
// soon as it has checked it sees every record exactly as written. In
// lockstep (each record written once the previous one was handed back)
// the reader needs two maps in all: the newest, and the one before it,
// freed when the newest arrived. Then a stream written without waiting,
// under -race: how many maps it takes depends on how the records are
// batched and scheduled, so only the values are checked.
func TestReader_RecycleStream(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Telemetry("arrays")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{QueueLen: 1000}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)
	const lockstep, n = 50, 300
	rng := rand.New(rand.NewPCG(3, 4))
	want := make([]map[string]any, lockstep+n)
	for i := range want {
		want[i] = randomRecord(tp, rng)
		want[i]["int0"] = []int32{int32(i), 1, 2, 3, 4}
	}
	seen := map[unsafe.Pointer]bool{}
	take := func(i int) {
		rec, err := r.Next(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		for _, k := range []string{"boolean0", "byte0", "short0", "int0", "long0", "longLong0", "unsignedShort0", "unsignedInt0", "float0", "double0"} {
			if !reflect.DeepEqual(rec[k], want[i][k]) {
				t.Errorf("record %d: %s = %v, want %v", i, k, rec[k], want[i][k])
			}
		}
		seen[reflect.ValueOf(rec).UnsafePointer()] = true
		r.Recycle(rec)
	}

	for i := range lockstep {
		if _, err := w.Write(ctx, maps.Clone(want[i])); err != nil {
			t.Fatal(err)
		}
		take(i)
	}
	if len(seen) != 2 {
		t.Errorf("lockstep: %d records decoded into %d maps, want 2", lockstep, len(seen))
	}

	clear(seen)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := lockstep; i < lockstep+n; i++ {
			take(i)
		}
	}()
	for i := lockstep; i < lockstep+n; i++ {
		if err := w.WriteAsync(ctx, maps.Clone(want[i]), nil); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	t.Logf("stream: %d records decoded into %d maps", n, len(seen))
	if s := r.Stats(); s.Delivered != lockstep+n || s.Overflow != 0 {
		t.Errorf("stats %+v, want %d delivered and no overflow", s, lockstep+n)
	}
}
