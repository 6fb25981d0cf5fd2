package validate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/xml"
)

// TestComplete_AgreesWithValid checks that the inlined switch of complete
// (the hot path) and valid (the slow paths) accept exactly the same values,
// for every SAL type, scalar and array, nullable or not.
func TestComplete_AgreesWithValid(t *testing.T) {
	values := []any{
		nil, true, uint8(1), int16(1), int32(1), int64(1), uint16(1), uint32(1), float32(1), 1.0, 1, "s",
		strings.Repeat("s", 9), "\xff", float32(math.NaN()),
		[]bool{true, false}, []uint8{1, 2}, []int16{1, 2}, []int32{1, 2}, []int64{1, 2}, []uint16{1, 2},
		[]uint32{1, 2}, []float32{1, 2}, []float64{1, 2}, []float64{1}, []float32{1, 2, 3}, []any{1.0, 2.0}, []int{1, 2},
	}
	for typ := xml.Type(0); typ <= xml.String+1; typ++ {
		for _, count := range []int{1, 2} {
			for _, nullable := range []bool{false, true} {
				top := &xml.Topic{Component: "C", SALName: "t", Fields: []*xml.Field{
					{Name: "x", Type: typ, Count: count, Size: 8, Nullable: nullable},
				}}
				v := Compile(top)
				f := &v.fields[0]
				for _, val := range values {
					rec := map[string]any{"x": val}
					if got, want := v.complete(rec), f.valid(val); got != want {
						t.Errorf("%v[%d] nullable %v, %s: complete %v, valid %v", typ, count, nullable, fmt.Sprintf("%#v", val), got, want)
					}
					if err := v.Validate(rec); (err == nil) != f.valid(val) && f.valid(val) {
						t.Errorf("%v[%d]: valid value rejected: %v", typ, count, err)
					}
				}
			}
		}
	}
}
