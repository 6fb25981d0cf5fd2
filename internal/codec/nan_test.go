package codec_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/lsst-sal/salgo/xml"
)

// TestAppend_CanonicalNaN checks that every NaN, whatever its sign and
// payload, is written as Python's float("nan") is: 0x7fc00000 as a float,
// 0x7ff8000000000000 as a double. Go's math.NaN() is 0x7ff8000000000001;
// ts_salobj 8 writes the canonical pattern (the salobj8-wire fixture). The
// decoder keeps the bits it reads.
func TestAppend_CanonicalNaN(t *testing.T) {
	top := topic("Test", "nans",
		field("f", xml.Float, 1), field("d", xml.Double, 1),
		field("fs", xml.Float, 12), field("ds", xml.Double, 6),
		nullable("nf", xml.Float, 1), nullable("nd", xml.Double, 1))
	c := mustNew(t, top)
	f32s := []float32{
		float32(math.NaN()), math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00000),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffffffff), 1.5,
	}
	f64s := []float64{
		math.NaN(), math.Float64frombits(0xfff8000000000000), math.Float64frombits(0x7ff0000000000001),
		math.Float64frombits(0xffffffffffffffff), math.Copysign(0, -1), math.Inf(-1),
	}
	fs := append(append([]float32(nil), f32s...), f32s...) // past the 8-item unrolled loop
	rec := map[string]any{
		"f": f32s[2], "d": f64s[0], "fs": fs, "ds": f64s,
		"nf": f32s[1], "nd": f64s[1],
	}
	b, err := c.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	want32 := func(x float32) uint32 {
		if x != x {
			return 0x7fc00000
		}
		return math.Float32bits(x)
	}
	want64 := func(x float64) uint64 {
		if x != x {
			return 0x7ff8000000000000
		}
		return math.Float64bits(x)
	}
	var exp []byte
	exp = binary.LittleEndian.AppendUint32(exp, 0x7fc00000)
	exp = binary.LittleEndian.AppendUint64(exp, 0x7ff8000000000000)
	exp = append(exp, byte(2*len(fs)))
	for _, x := range fs {
		exp = binary.LittleEndian.AppendUint32(exp, want32(x))
	}
	exp = append(exp, 0, byte(2*len(f64s)))
	for _, x := range f64s {
		exp = binary.LittleEndian.AppendUint64(exp, want64(x))
	}
	exp = append(exp, 0, 2)
	exp = binary.LittleEndian.AppendUint32(exp, 0x7fc00000)
	exp = append(exp, 2)
	exp = binary.LittleEndian.AppendUint64(exp, 0x7ff8000000000000)
	if string(b) != string(exp) {
		t.Fatalf("Append wrote\n%x\nwant\n%x", b, exp)
	}

	// Decoding keeps a payload NaN another writer put on the wire.
	in := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(in[0:], 0xffc00001)
	binary.LittleEndian.PutUint64(in[4:], 0x7ff8000000000001)
	got, err := c.Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	if g := math.Float32bits(got["f"].(float32)); g != 0xffc00001 {
		t.Errorf("decoded float bits %08x, want ffc00001", g)
	}
	if g := math.Float64bits(got["d"].(float64)); g != 0x7ff8000000000001 {
		t.Errorf("decoded double bits %016x, want 7ff8000000000001", g)
	}
}
