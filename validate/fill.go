package validate

import "math"

// fill is the fast conversion of the common source slices into a new
// canonical slice dst (from makeSlice, of the same length as src): []float64
// and []float32 into float arrays, []any of float64 (encoding/json),
// float32, int or int64 (hamba/avro) into any numeric array. It returns
// false as soon as an element needs the general path (an error, an unusual
// element type); the caller then runs the general path, which reports the
// errors.
func fill(dst, src any) bool {
	switch d := dst.(type) {
	case []float32:
		switch s := src.(type) {
		case []float64:
			for i, x := range s {
				if math.Abs(x) > math.MaxFloat32 && !math.IsInf(x, 0) {
					return false
				}
				d[i] = float32(x)
			}
			return true
		case []any:
			for i, e := range s {
				switch x := e.(type) {
				case float32:
					d[i] = x
				case float64:
					if math.Abs(x) > math.MaxFloat32 && !math.IsInf(x, 0) {
						return false
					}
					d[i] = float32(x)
				default:
					return false
				}
			}
			return true
		}
	case []float64:
		switch s := src.(type) {
		case []float32:
			for i, x := range s {
				d[i] = float64(x)
			}
			return true
		case []any:
			for i, e := range s {
				switch x := e.(type) {
				case float64:
					d[i] = x
				case float32:
					d[i] = float64(x)
				default:
					return false
				}
			}
			return true
		}
	case []uint8:
		return fillInts(d, src, 0, math.MaxUint8)
	case []int16:
		return fillInts(d, src, math.MinInt16, math.MaxInt16)
	case []int32:
		return fillInts(d, src, math.MinInt32, math.MaxInt32)
	case []int64:
		return fillInts(d, src, math.MinInt64, math.MaxInt64)
	case []uint16:
		return fillInts(d, src, 0, math.MaxUint16)
	case []uint32:
		return fillInts(d, src, 0, math.MaxUint32)
	}
	return false
}

// fillInts is fill for an integer array from []any.
func fillInts[T uint8 | int16 | int32 | int64 | uint16 | uint32](d []T, src any, lo, hi int64) bool {
	s, ok := src.([]any)
	if !ok {
		return false
	}
	for i, e := range s {
		var x int64
		switch y := e.(type) {
		case int:
			x = int64(y)
		case int64:
			x = y
		case float64:
			// Integral and within ±2^53: exact; anything else takes the
			// general path.
			if y != math.Trunc(y) || y < -(1<<53) || y > 1<<53 {
				return false
			}
			x = int64(y)
		default:
			return false
		}
		if x < lo || x > hi {
			return false
		}
		d[i] = T(x)
	}
	return true
}
