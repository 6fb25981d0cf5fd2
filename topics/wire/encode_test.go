package wire_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// exampleRecords returns records of topic t to encode: zero, random,
// extreme and NaN values, and arrays of other lengths than Count.
func exampleRecords(t *xml.Topic) map[string]map[string]any {
	v := validate.Compile(t)
	rng := rand.New(rand.NewPCG(1, 2))
	recs := map[string]map[string]any{"zero": v.New()}
	for i := range 5 {
		recs["random"+string(rune('0'+i))] = v.Random(rng)
	}
	nan32 := []float32{
		float32(math.NaN()),
		math.Float32frombits(0x7fc00001),
		math.Float32frombits(0xffc00000), // negative
		math.Float32frombits(0x7f800001), // signalling
	}
	nan64 := []float64{
		math.NaN(), // 0x7ff8000000000001
		math.Float64frombits(0xfff8000000000000),
		math.Float64frombits(0x7ff0000000000001),
		math.Float64frombits(0x7ff8000000000000),
	}
	for i := range nan32 {
		rec := v.New()
		set(t, rec, map[xml.Type]any{
			xml.Float:  nan32[i],
			xml.Double: nan64[i],
		}, map[xml.Type]any{
			xml.Float:  []float32{1, nan32[i], -0, nan32[(i+1)%4], float32(math.Inf(-1))},
			xml.Double: []float64{nan64[i], 2, math.Copysign(0, -1), math.Inf(1), nan64[(i+3)%4]},
		})
		recs["nan"+string(rune('0'+i))] = rec
	}
	for _, sign := range []int{1, -1} {
		rec := v.New()
		lo := sign < 0
		pick := func(a, b any) any {
			if lo {
				return b
			}
			return a
		}
		set(t, rec, map[xml.Type]any{
			xml.Boolean:       !lo,
			xml.Byte:          pick(uint8(math.MaxUint8), uint8(0)),
			xml.Short:         pick(int16(math.MaxInt16), int16(math.MinInt16)),
			xml.Int:           pick(int32(math.MaxInt32), int32(math.MinInt32)),
			xml.Long:          pick(int32(math.MaxInt32), int32(math.MinInt32)),
			xml.LongLong:      pick(int64(math.MaxInt64), int64(math.MinInt64)),
			xml.UnsignedShort: pick(uint16(math.MaxUint16), uint16(0)),
			xml.UnsignedInt:   pick(uint32(math.MaxUint32), uint32(0)),
			xml.Float:         pick(float32(math.MaxFloat32), float32(-math.SmallestNonzeroFloat32)),
			xml.Double:        pick(math.MaxFloat64, -math.SmallestNonzeroFloat64),
			xml.String:        pick(strings.Repeat("é", 10), ""),
		}, map[xml.Type]any{
			xml.Boolean:       []bool{true, false, true, true, false},
			xml.Byte:          []uint8{0, 1, 127, 128, 255},
			xml.Short:         []int16{math.MinInt16, -1, 0, 1, math.MaxInt16},
			xml.Int:           []int32{math.MinInt32, -64, 63, 64, math.MaxInt32},
			xml.Long:          []int32{math.MinInt32, -65, 8191, 8192, math.MaxInt32},
			xml.LongLong:      []int64{math.MinInt64, -1 << 35, 1 << 35, 0, math.MaxInt64},
			xml.UnsignedShort: []uint16{0, 1, 0x3fff, 0x4000, math.MaxUint16},
			xml.UnsignedInt:   []uint32{0, 1, 1 << 31, 1<<31 - 1, math.MaxUint32},
			xml.Float:         []float32{0, 1.5, -2.25, math.MaxFloat32, math.SmallestNonzeroFloat32},
			xml.Double:        []float64{0, 1.5, -2.25, math.MaxFloat64, math.SmallestNonzeroFloat64},
		})
		recs["extreme"+pick("Hi", "Lo").(string)] = rec
	}
	// Arrays of other lengths: empty, and longer than a one-byte count.
	for _, n := range []int{0, 1, 64, 300} {
		rec := v.New()
		set(t, rec, nil, map[xml.Type]any{
			xml.Boolean:       make([]bool, n),
			xml.Byte:          ramp[uint8](n),
			xml.Short:         ramp[int16](n),
			xml.Int:           ramp[int32](n),
			xml.Long:          ramp[int32](n),
			xml.LongLong:      ramp[int64](n),
			xml.UnsignedShort: ramp[uint16](n),
			xml.UnsignedInt:   ramp[uint32](n),
			xml.Float:         ramp[float32](n),
			xml.Double:        ramp[float64](n),
		})
		recs["len"+strings.Repeat("0", n%7)+string(rune('a'+n%26))] = rec
	}
	return recs
}

func ramp[T uint8 | int16 | int32 | int64 | uint16 | uint32 | float32 | float64](n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = T(i * 37)
	}
	return s
}

// set stores scalars[type] in the user scalar fields and arrays[type] in
// the user array fields of rec.
func set(t *xml.Topic, rec map[string]any, scalars, arrays map[xml.Type]any) {
	for _, f := range t.UserFields() {
		if f.Count > 1 && f.Type != xml.String {
			if v, ok := arrays[f.Type]; ok {
				rec[f.Name] = v
			}
		} else if v, ok := scalars[f.Type]; ok {
			rec[f.Name] = v
		}
	}
}

// TestAppendMatchesCodec checks that the wire functions encode every type
// and array type byte for byte as the map codec does, NaNs included.
func TestAppendMatchesCodec(t *testing.T) {
	for _, name := range []string{"scalars", "arrays"} {
		top, c := exampleTopic(t, name)
		for rname, rec := range exampleRecords(top) {
			want, err := c.Append(nil, rec)
			if err != nil {
				t.Fatalf("%s %s: codec: %v", name, rname, err)
			}
			got := appendRecord(t, []byte("prefix"), top, rec)
			if !bytes.Equal(got[6:], want) || string(got[:6]) != "prefix" {
				t.Errorf("%s %s: wire encodes\n%x\ncodec encodes\n%x", name, rname, got[6:], want)
			}
		}
	}
}

func TestAppendNaN(t *testing.T) {
	for _, tc := range []struct {
		got, want []byte
	}{
		{appendFloat32(math.Float32frombits(0xff800001)), []byte{0, 0, 0xc0, 0x7f}},
		{appendFloat64(math.NaN()), []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}},
		{appendFloats32(math.Float32frombits(0x7fbfffff)), []byte{2, 0, 0, 0xc0, 0x7f, 0}},
		{appendDoubles64(math.Float64frombits(0xffffffffffffffff)), []byte{2, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0}},
	} {
		if !bytes.Equal(tc.got, tc.want) {
			t.Errorf("got %x, want %x", tc.got, tc.want)
		}
	}
}
