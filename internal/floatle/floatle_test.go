package floatle

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// TestPutFloats_NaNScan checks the NaN scans against comparing each item
// with itself, for every length up to 19, every position of the special
// value and both alignments of a float slice, and that the copy path of
// little-endian machines and the byte-order independent loop write the
// same bytes, every NaN canonical.
func TestPutFloats_NaNScan(t *testing.T) {
	specials32 := []uint32{0x7f800000, 0xff800000, 0x7f800001, 0xff800001, 0x7fc00000, 0x7fffffff, 0xffffffff, 0x80000000, 0x7f7fffff}
	specials64 := []uint64{0x7ff0000000000000, 0xfff0000000000000, 0x7ff0000000000001, 0xfff8000000000000, 0x7fffffffffffffff, 0x8000000000000000, 0x7fefffffffffffff}
	defer func(le bool) { NativeLE = le }(NativeLE)
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
						NativeLE = le
						outs[i] = make([]byte, 4*len(xs))
						PutFloats(outs[i], xs)
					}
					NativeLE = true
					if string(outs[0]) != string(outs[1]) {
						t.Fatalf("PutFloats(n=%d, item %d = %08x): copy path %x, loop %x", n, p, u, outs[0], outs[1])
					}
					for i, x := range xs {
						if x != x && binary.LittleEndian.Uint32(outs[0][4*i:]) != nanBits32 {
							t.Fatalf("PutFloats(n=%d): item %d NaN written as %x", n, i, outs[0][4*i:4*i+4])
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
					NativeLE = le
					outs[i] = make([]byte, 8*len(xs))
					PutDoubles(outs[i], xs)
				}
				NativeLE = true
				if string(outs[0]) != string(outs[1]) {
					t.Fatalf("PutDoubles(n=%d, item %d = %016x): copy path %x, loop %x", n, p, u, outs[0], outs[1])
				}
				for i, x := range xs {
					if x != x && binary.LittleEndian.Uint64(outs[0][8*i:]) != nanBits64 {
						t.Fatalf("PutDoubles(n=%d): item %d NaN written as %x", n, i, outs[0][8*i:8*i+8])
					}
				}
			}
		}
	}
}
