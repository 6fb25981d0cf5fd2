package codec_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
	"github.com/lsst-sal/salgo/xml"
)

// TestAppendValues_SameAsAppend: a record given as its values in field
// order encodes to the bytes Append writes for the map.
func TestAppendValues_SameAsAppend(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, top := range []*xml.Topic{allTypes(), forceActuatorData(), bigDoubles()} {
		c := mustNew(t, top)
		for range 20 {
			rec := randomRecord(r, top)
			want, err := c.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			vals := make([]any, len(top.Fields))
			for i, f := range top.Fields {
				vals[i] = rec[f.Name]
			}
			got, err := c.AppendValues([]byte{9}, vals)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[1:], want) || got[0] != 9 {
				t.Fatalf("%s: AppendValues wrote %x, Append %x", top, got, want)
			}
		}
	}
}

// TestAppendValues_Errors: too few values, and a value of the wrong type
// (named in the error), leave dst as it was.
func TestAppendValues_Errors(t *testing.T) {
	top := allTypes()
	c := mustNew(t, top)
	rec := randomRecord(rand.New(rand.NewPCG(33, 34)), top)
	vals := make([]any, len(top.Fields))
	for i, f := range top.Fields {
		vals[i] = rec[f.Name]
	}
	dst := []byte{1, 2}
	if got, err := c.AppendValues(dst, vals[1:]); err == nil || !bytes.Equal(got, dst) {
		t.Errorf("short values: %x, %v; want dst unchanged and an error", got, err)
	}
	last := len(vals) - 1
	vals[last] = struct{}{}
	got, err := c.AppendValues(dst, vals)
	if err == nil || !bytes.Equal(got, dst) {
		t.Fatalf("bad value: %x, %v; want dst unchanged and an error", got, err)
	}
	var fe *codec.FieldError
	if !errors.As(err, &fe) || fe.Field != top.Fields[last].Name {
		t.Errorf("error %v does not name field %s", err, top.Fields[last].Name)
	}
}

// TestBoxes: values boxed from slabs hold their values, stay put when
// more are boxed, and Same tells a value stored once from an equal one
// boxed apart.
func TestBoxes(t *testing.T) {
	var b codec.Boxes
	var fs, is []any
	for i := range 1000 { // several slabs
		fs = append(fs, b.F64(float64(i)+0.5))
		is = append(is, b.I32(int32(i*1000-7)))
	}
	for i := range 1000 {
		if fs[i] != float64(i)+0.5 || is[i] != int32(i*1000-7) {
			t.Fatalf("%d: boxed %v and %v", i, fs[i], is[i])
		}
	}
	nan := b.F64(math.NaN())
	if v, ok := nan.(float64); !ok || !math.IsNaN(v) {
		t.Errorf("NaN boxed as %v", nan)
	}
	if !codec.Same(fs[3], fs[3]) || codec.Same(fs[3], any(3.5)) || codec.Same(fs[3], fs[4]) {
		t.Error("Same: a value is itself and not an equal value boxed apart, nor another")
	}
	if !codec.Same(b.I32(7), any(int32(7))) {
		t.Error("Same: small int32 values share the runtime's boxes")
	}
	if a := testing.AllocsPerRun(1000, func() { _ = b.F64(1.5); _ = b.I32(100000) }); a > 0.1 {
		t.Errorf("%v allocations per two values, want one per slab", a)
	}
}
