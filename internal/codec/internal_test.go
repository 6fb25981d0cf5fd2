package codec

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/hamba/avro/v2"

	"github.com/lsst-sal/salgo/xml"
)

// TestDecode_HambaDefaultBlocks decodes what hamba writes with its default
// configuration: arrays in blocks of 100 items, each with a negative count
// and a byte size, and skips such arrays in unknown fields.
func TestDecode_HambaDefaultBlocks(t *testing.T) {
	fields := []*xml.Field{
		{Name: "f", Type: xml.Float, Count: 356},
		{Name: "d", Type: xml.Double, Count: 250},
		{Name: "i", Type: xml.Int, Count: 101},
		{Name: "s", Type: xml.String, Count: 1},
	}
	top := &xml.Topic{Component: "T", SALName: "blocks", Fields: fields}
	schema := `{"type": "record", "name": "blocks", "fields": [
		{"name": "f", "type": {"type": "array", "items": "float"}},
		{"name": "d", "type": {"type": "array", "items": "double"}},
		{"name": "i", "type": {"type": "array", "items": "int"}},
		{"name": "s", "type": "string"}]}`
	s := avro.MustParse(schema)
	r := rand.New(rand.NewPCG(1, 1))
	rec := map[string]any{"f": make([]float32, 356), "d": make([]float64, 250), "i": make([]int32, 101), "s": "x"}
	for i := range 356 {
		rec["f"].([]float32)[i] = r.Float32()
	}
	for i := range 250 {
		rec["d"].([]float64)[i] = r.Float64()
	}
	for i := range 101 {
		rec["i"].([]int32)[i] = r.Int32() - 1<<30
	}
	b, err := avro.Config{}.Freeze().Marshal(s, rec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(top)
	if err != nil {
		t.Fatal(err)
	}
	ours, _ := c.Append(nil, rec)
	if len(b) == len(ours) {
		t.Fatalf("hamba's default layout unexpectedly matches ours (%d bytes)", len(b))
	}
	got, err := c.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatal("decode of hamba's blocks differs")
	}
	// Skipped as unknown writer fields.
	d, err := NewResolving(schema, &xml.Topic{Component: "T", SALName: "blocks", Fields: fields[3:]})
	if err != nil {
		t.Fatal(err)
	}
	got, err = d.Decode(b)
	if err != nil || !reflect.DeepEqual(got, map[string]any{"s": "x"}) {
		t.Fatalf("skip: %v %#v", err, got)
	}
}

// TestSkip_Recursion checks that a record that recurses without consuming
// input fails instead of exhausting the stack.
func TestSkip_Recursion(t *testing.T) {
	schema := `{"type": "record", "name": "w", "fields": [
		{"name": "loop", "type": {"type": "record", "name": "L", "fields": [
			{"name": "x", "type": {"type": "array", "items": "L"}}]}},
		{"name": "a", "type": "int"}]}`
	d, err := NewResolving(schema, &xml.Topic{Component: "T", SALName: "w", Fields: []*xml.Field{{Name: "a", Type: xml.Int, Count: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// Each level: array block of 1 item, then the nested record.
	var b []byte
	for range 10000 {
		b = append(b, 2)
	}
	if _, err := d.Decode(b); err == nil {
		t.Fatal("no error")
	}
	// A legitimate depth of 10 decodes.
	b = b[:0]
	for range 10 {
		b = append(b, 2)
	}
	for range 11 {
		b = append(b, 0)
	}
	b = append(b, 84)
	got, err := d.Decode(b)
	if err != nil || got["a"] != int32(42) {
		t.Fatalf("%v %v", err, got)
	}
}

func TestSizeHint(t *testing.T) {
	fs := []*xml.Field{{Name: "s", Type: xml.String, Count: 1}}
	for i := range 3 {
		fs = append(fs, &xml.Field{Name: "a" + strconv.Itoa(i), Type: xml.LongLong, Count: 10, Nullable: i == 1})
	}
	c, err := New(&xml.Topic{Fields: fs})
	if err != nil {
		t.Fatal(err)
	}
	if want := 5 + stringHint + 3*(1+10*10+1) + 1; c.SizeHint() != want {
		t.Fatalf("SizeHint %d, want %d", c.SizeHint(), want)
	}
}

// TestDecode_PortableFloats decodes float and double arrays with the
// byte-order independent loops a big-endian machine uses, and checks they
// agree with the copy used on little-endian ones.
func TestDecode_PortableFloats(t *testing.T) {
	top := &xml.Topic{Component: "T", SALName: "p", Fields: []*xml.Field{
		{Name: "f", Type: xml.Float, Count: 13}, {Name: "d", Type: xml.Double, Count: 7},
		{Name: "x", Type: xml.Float, Count: 1}, {Name: "y", Type: xml.Double, Count: 1}}}
	c, err := New(top)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 3))
	rec := map[string]any{"f": make([]float32, 13), "d": make([]float64, 7), "x": r.Float32(), "y": r.Float64()}
	for i := range 13 {
		rec["f"].([]float32)[i] = r.Float32() - 0.5
	}
	for i := range 7 {
		rec["d"].([]float64)[i] = r.Float64() - 0.5
	}
	b, _ := c.Append(nil, rec)
	defer func(le bool) { nativeLE = le }(nativeLE)
	for _, le := range []bool{true, false} {
		nativeLE = le
		got, err := c.Decode(b)
		if err != nil || !reflect.DeepEqual(got, rec) {
			t.Errorf("nativeLE %v: %v %#v", le, err, got)
		}
	}
}

// TestPutFloats_NaNScan checks the NaN scans against comparing each item
// with itself, for every length up to 19, every position of the special
// value and both alignments of a float slice, and that the copy path of
// little-endian machines and the byte-order independent loop write the
// same bytes, every NaN canonical.
func TestPutFloats_NaNScan(t *testing.T) {
	specials32 := []uint32{0x7f800000, 0xff800000, 0x7f800001, 0xff800001, 0x7fc00000, 0x7fffffff, 0xffffffff, 0x80000000, 0x7f7fffff}
	specials64 := []uint64{0x7ff0000000000000, 0xfff0000000000000, 0x7ff0000000000001, 0xfff8000000000000, 0x7fffffffffffffff, 0x8000000000000000, 0x7fefffffffffffff}
	defer func(le bool) { nativeLE = le }(nativeLE)
	for n := range 20 {
		for p := range max(n, 1) {
			for _, u := range specials32 {
				backing := make([]float32, n+1)
				for i := range backing {
					backing[i] = float32(i) + 0.5
				}
				for _, xs := range [][]float32{backing[:n], backing[1:]} {
					if n > 0 {
						xs[p] = math.Float32frombits(u)
					}
					want := false
					for _, x := range xs {
						want = want || x != x
					}
					if got := hasNaN32(xs); got != want {
						t.Fatalf("hasNaN32(n=%d, item %d = %08x): %v", n, p, u, got)
					}
					var outs [2][]byte
					for i, le := range []bool{true, false} {
						nativeLE = le
						outs[i] = make([]byte, 4*len(xs))
						putFloats(outs[i], xs)
					}
					nativeLE = true
					if string(outs[0]) != string(outs[1]) {
						t.Fatalf("putFloats(n=%d, item %d = %08x): copy path %x, loop %x", n, p, u, outs[0], outs[1])
					}
					for i, x := range xs {
						if x != x && binary.LittleEndian.Uint32(outs[0][4*i:]) != nanBits32 {
							t.Fatalf("putFloats(n=%d): item %d NaN written as %x", n, i, outs[0][4*i:4*i+4])
						}
					}
				}
			}
			for _, u := range specials64 {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = float64(i) + 0.5
				}
				if n > 0 {
					xs[p] = math.Float64frombits(u)
				}
				want := false
				for _, x := range xs {
					want = want || x != x
				}
				if got := hasNaN64(xs); got != want {
					t.Fatalf("hasNaN64(n=%d, item %d = %016x): %v", n, p, u, got)
				}
				var outs [2][]byte
				for i, le := range []bool{true, false} {
					nativeLE = le
					outs[i] = make([]byte, 8*len(xs))
					putDoubles(outs[i], xs)
				}
				nativeLE = true
				if string(outs[0]) != string(outs[1]) {
					t.Fatalf("putDoubles(n=%d, item %d = %016x): copy path %x, loop %x", n, p, u, outs[0], outs[1])
				}
				for i, x := range xs {
					if x != x && binary.LittleEndian.Uint64(outs[0][8*i:]) != nanBits64 {
						t.Fatalf("putDoubles(n=%d): item %d NaN written as %x", n, i, outs[0][8*i:8*i+8])
					}
				}
			}
		}
	}
}
