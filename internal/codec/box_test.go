package codec_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"

	"github.com/lsst-sal/salgo/xml"
)

// TestDecode_Allocs checks that a fresh forceActuatorData record costs the
// map, one array for its float and double values and one for its slice
// headers: no allocation per value.
func TestDecode_Allocs(t *testing.T) {
	top := forceActuatorData()
	c := mustNew(t, top)
	b, _ := c.Append(nil, randomRecord(rand.New(rand.NewPCG(17, 18)), top))
	if _, err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	// The map itself takes 4 allocations in Go 1.26 (header, directory,
	// table, groups); allow one more for other runtimes.
	if a := testing.AllocsPerRun(100, func() { _, _ = c.Decode(b) }); a > 7 {
		t.Errorf("Decode: %v allocs, want at most 7", a)
	}
}

// TestDecode_Independent checks that records decoded one after the other
// share nothing that can change: values boxed from one record's slabs stay
// put when the next record is decoded, and when the record's own arrays
// are overwritten in place by DecodeInto.
func TestDecode_Independent(t *testing.T) {
	top := forceActuatorData()
	c := mustNew(t, top)
	r := rand.New(rand.NewPCG(19, 20))
	rec1, rec2 := randomRecord(r, top), randomRecord(r, top)
	b1, _ := c.Append(nil, rec1)
	b2, _ := c.Append(nil, rec2)
	got1 := must(c.Decode(b1))
	got2 := must(c.Decode(b2))
	if !reflect.DeepEqual(got1, rec1) || !reflect.DeepEqual(got2, rec2) {
		t.Fatal("records differ")
	}
	scalars := map[string]any{}
	for k, v := range got1 {
		if reflect.TypeOf(v).Kind() != reflect.Slice {
			scalars[k] = v
		}
	}
	if err := c.DecodeInto(b2, got1); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got1, rec2) {
		t.Fatal("DecodeInto record differs")
	}
	for k, v := range scalars {
		if !reflect.DeepEqual(v, rec1[k]) {
			t.Errorf("%s: boxed value changed from %v to %v", k, rec1[k], v)
		}
	}
}

// TestDecode_Strings checks that string values that repeat, change, and
// alternate between goroutines decode right (a decoder remembers the last
// value of each string field).
func TestDecode_Strings(t *testing.T) {
	top := topic("T", "s", field("a", xml.String, 1), field("f", xml.Float, 3), field("b", xml.String, 1))
	c := mustNew(t, top)
	bodies := make([][]byte, 4)
	recs := make([]map[string]any, 4)
	for i := range recs {
		recs[i] = map[string]any{"a": fmt.Sprint("writer", i%2), "f": []float32{1, 2, float32(i)}, "b": fmt.Sprint(i)}
		bodies[i], _ = c.Append(nil, recs[i])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for j := range 200 {
				i := (g + j/(g+1)) % 4
				got, err := c.Decode(bodies[i])
				if err != nil || !reflect.DeepEqual(got, recs[i]) {
					t.Errorf("goroutine %d record %d: %v %v", g, i, err, got)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestDecode_OddLengths decodes arrays longer and shorter than their
// Count, which use up the slabs early or late, and checks the records
// still equal what was written.
func TestDecode_OddLengths(t *testing.T) {
	top := topic("T", "odd", field("i", xml.Int, 1), field("a", xml.Float, 3), field("f", xml.Float, 1),
		field("d", xml.Double, 2), field("e", xml.Double, 1), field("g", xml.Float, 1), field("j", xml.Int, 1))
	c := mustNew(t, top)
	for _, n := range []int{0, 1, 2, 3, 4, 5, 9} {
		rec := map[string]any{"i": int32(1000 + n), "a": make([]float32, n), "f": float32(n) + 0.5,
			"d": make([]float64, n), "e": float64(n) + 0.25, "g": float32(-n), "j": int32(-5)}
		for k := range n {
			rec["a"].([]float32)[k] = float32(k) + 0.125
			rec["d"].([]float64)[k] = float64(k) + 0.375
		}
		b, err := c.Append(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(b)
		if err != nil || !reflect.DeepEqual(got, rec) {
			t.Errorf("length %d: %v\n got %#v\nwant %#v", n, err, got, rec)
		}
		if err := c.DecodeInto(b, got); err != nil || !reflect.DeepEqual(got, rec) {
			t.Errorf("length %d: DecodeInto: %v", n, err)
		}
	}
}
