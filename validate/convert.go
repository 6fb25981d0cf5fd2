package validate

import (
	"encoding/json"
	"math"
	"strconv"
)

// numKind classifies a value that may be converted to a number or a bool.
type numKind uint8

const (
	nOther numKind = iota // not a number or bool
	nInt                  // a signed integer, or an unsigned one up to MaxInt64, in i
	nUint                 // an unsigned integer above MaxInt64, in u
	nFloat                // float32 or float64, in f
	nBool                 // bool, in b
	nOver                 // a json.Number beyond float64; f is ±Inf
)

// num is a value unboxed from an interface, so that slices convert without
// boxing each element.
type num struct {
	k numKind
	b bool
	i int64
	u uint64
	f float64
}

func fromUint(u uint64) num {
	if u > math.MaxInt64 {
		return num{k: nUint, u: u}
	}
	return num{k: nInt, i: int64(u)}
}

// numOf unboxes a scalar.
func numOf(v any) num {
	switch x := v.(type) {
	case bool:
		return num{k: nBool, b: x}
	case int:
		return num{k: nInt, i: int64(x)}
	case int8:
		return num{k: nInt, i: int64(x)}
	case int16:
		return num{k: nInt, i: int64(x)}
	case int32:
		return num{k: nInt, i: int64(x)}
	case int64:
		return num{k: nInt, i: x}
	case uint:
		return fromUint(uint64(x))
	case uint8:
		return num{k: nInt, i: int64(x)}
	case uint16:
		return num{k: nInt, i: int64(x)}
	case uint32:
		return num{k: nInt, i: int64(x)}
	case uint64:
		return fromUint(x)
	case uintptr:
		return fromUint(uint64(x))
	case float32:
		return num{k: nFloat, f: float64(x)}
	case float64:
		return num{k: nFloat, f: x}
	case json.Number:
		return numOfJSON(string(x))
	}
	return num{}
}

// numOfJSON parses the text of a json.Number.
func numOfJSON(s string) num {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return num{k: nInt, i: i}
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return fromUint(u)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err == nil {
		return num{k: nFloat, f: f}
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange && math.IsInf(f, 0) {
		return num{k: nOver, f: f}
	}
	return num{}
}

// Why a conversion failed.
const (
	okConv     = iota
	badType    // ErrType: not a number (or not a bool for kBool)
	notInteger // ErrType: a non-integral float for an integer kind
	outOfRange // ErrRange
)

// convert converts n to kind k (not kString). On success the result is in
// out.b, out.i (integer kinds) or out.f (float kinds, already rounded to
// float32 for kFloat32).
func convert(k kind, n num) (out num, why int) {
	switch {
	case k == kBool:
		if n.k == nBool {
			return n, okConv
		}
		return n, badType
	case k.isInt():
		var x int64
		switch n.k {
		case nInt:
			x = n.i
		case nUint, nOver:
			return n, outOfRange
		case nFloat:
			f := n.f
			if math.IsInf(f, 0) {
				return n, outOfRange
			}
			if f != math.Trunc(f) { // also NaN
				return n, notInteger
			}
			if f < -(1<<63) || f >= 1<<63 {
				return n, outOfRange
			}
			x = int64(f)
		default:
			return n, badType
		}
		if x < kinds[k].lo || x > kinds[k].hi {
			return n, outOfRange
		}
		return num{k: nInt, i: x}, okConv
	case k == kFloat32 || k == kFloat64:
		var f float64
		switch n.k {
		case nFloat:
			f = n.f
		case nInt:
			f = float64(n.i)
		case nUint:
			f = float64(n.u)
		case nOver:
			return n, outOfRange
		default:
			return n, badType
		}
		if k == kFloat32 {
			if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
				return n, outOfRange
			}
			f = float64(float32(f))
		}
		return num{k: nFloat, f: f}, okConv
	}
	return n, badType
}

// bounds returns the range text of kind k: "0..255", "±3.4028234663852886e+38".
func bounds(k kind) string {
	switch k {
	case kFloat32:
		return "±" + strconv.FormatFloat(math.MaxFloat32, 'g', -1, 64)
	case kFloat64:
		return "±" + strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)
	}
	return strconv.FormatInt(kinds[k].lo, 10) + ".." + strconv.FormatInt(kinds[k].hi, 10)
}

// box returns the canonical value of kind k held in n (after convert).
func box(k kind, n num) any {
	switch k {
	case kBool:
		return n.b
	case kUint8:
		return uint8(n.i)
	case kInt16:
		return int16(n.i)
	case kInt32:
		return int32(n.i)
	case kInt64:
		return n.i
	case kUint16:
		return uint16(n.i)
	case kUint32:
		return uint32(n.i)
	case kFloat32:
		return float32(n.f)
	case kFloat64:
		return n.f
	}
	return nil
}

// setElem stores the converted n at dst[i]; dst is a canonical slice from
// makeSlice.
func setElem(dst any, i int, n num) {
	switch s := dst.(type) {
	case []bool:
		s[i] = n.b
	case []uint8:
		s[i] = uint8(n.i)
	case []int16:
		s[i] = int16(n.i)
	case []int32:
		s[i] = int32(n.i)
	case []int64:
		s[i] = n.i
	case []uint16:
		s[i] = uint16(n.i)
	case []uint32:
		s[i] = uint32(n.i)
	case []float32:
		s[i] = float32(n.f)
	case []float64:
		s[i] = n.f
	}
}

// Source slice classes.
const (
	srcNone = iota // not a slice this package converts
	srcAny         // []any: each element is checked
	srcNum         // a slice of a Go number type
	srcBool        // []bool
)

// anySliceLen returns the length and type name of a slice this package can
// convert, or -1.
func anySliceLen(v any) (int, string) {
	n, _, name := sliceInfo(v)
	return n, name
}

// sliceInfo returns the length, class and type name of a source slice.
func sliceInfo(v any) (int, int, string) {
	switch s := v.(type) {
	case []any:
		return len(s), srcAny, "[]any"
	case []bool:
		return len(s), srcBool, "[]bool"
	case []int:
		return len(s), srcNum, "[]int"
	case []int8:
		return len(s), srcNum, "[]int8"
	case []int16:
		return len(s), srcNum, "[]int16"
	case []int32:
		return len(s), srcNum, "[]int32"
	case []int64:
		return len(s), srcNum, "[]int64"
	case []uint:
		return len(s), srcNum, "[]uint"
	case []uint8:
		return len(s), srcNum, "[]uint8"
	case []uint16:
		return len(s), srcNum, "[]uint16"
	case []uint32:
		return len(s), srcNum, "[]uint32"
	case []uint64:
		return len(s), srcNum, "[]uint64"
	case []float32:
		return len(s), srcNum, "[]float32"
	case []float64:
		return len(s), srcNum, "[]float64"
	case []json.Number:
		return len(s), srcNum, "[]json.Number"
	case []string:
		return len(s), srcNone, "[]string"
	}
	return -1, srcNone, ""
}

// elemNum unboxes element i of a source slice.
func elemNum(v any, i int) num {
	switch s := v.(type) {
	case []any:
		return numOf(s[i])
	case []bool:
		return num{k: nBool, b: s[i]}
	case []int:
		return num{k: nInt, i: int64(s[i])}
	case []int8:
		return num{k: nInt, i: int64(s[i])}
	case []int16:
		return num{k: nInt, i: int64(s[i])}
	case []int32:
		return num{k: nInt, i: int64(s[i])}
	case []int64:
		return num{k: nInt, i: s[i]}
	case []uint:
		return fromUint(uint64(s[i]))
	case []uint8:
		return num{k: nInt, i: int64(s[i])}
	case []uint16:
		return num{k: nInt, i: int64(s[i])}
	case []uint32:
		return num{k: nInt, i: int64(s[i])}
	case []uint64:
		return fromUint(s[i])
	case []float32:
		return num{k: nFloat, f: float64(s[i])}
	case []float64:
		return num{k: nFloat, f: s[i]}
	case []json.Number:
		return numOfJSON(string(s[i]))
	}
	return num{}
}

// elemAny returns element i of a source slice as an interface, for errors.
func elemAny(v any, i int) any {
	switch s := v.(type) {
	case []any:
		return s[i]
	case []bool:
		return s[i]
	case []int:
		return s[i]
	case []int8:
		return s[i]
	case []int16:
		return s[i]
	case []int32:
		return s[i]
	case []int64:
		return s[i]
	case []uint:
		return s[i]
	case []uint8:
		return s[i]
	case []uint16:
		return s[i]
	case []uint32:
		return s[i]
	case []uint64:
		return s[i]
	case []float32:
		return s[i]
	case []float64:
		return s[i]
	case []json.Number:
		return s[i]
	}
	return nil
}
