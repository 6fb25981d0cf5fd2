package validate

import (
	"math"

	"github.com/lsst-sal/salgo/xml"
)

// kind is the canonical Go type of a field's scalar value.
type kind uint8

const (
	kInvalid kind = iota
	kBool
	kUint8
	kInt16
	kInt32
	kInt64
	kUint16
	kUint32
	kFloat32
	kFloat64
	kString
)

// kindInfo describes one kind: its Go type names and, for the integers, its
// range.
type kindInfo struct {
	scalar, array string
	lo, hi        int64
}

var kinds = [...]kindInfo{
	kInvalid: {},
	kBool:    {scalar: "bool", array: "[]bool"},
	kUint8:   {scalar: "uint8", array: "[]uint8", lo: 0, hi: math.MaxUint8},
	kInt16:   {scalar: "int16", array: "[]int16", lo: math.MinInt16, hi: math.MaxInt16},
	kInt32:   {scalar: "int32", array: "[]int32", lo: math.MinInt32, hi: math.MaxInt32},
	kInt64:   {scalar: "int64", array: "[]int64", lo: math.MinInt64, hi: math.MaxInt64},
	kUint16:  {scalar: "uint16", array: "[]uint16", lo: 0, hi: math.MaxUint16},
	kUint32:  {scalar: "uint32", array: "[]uint32", lo: 0, hi: math.MaxUint32},
	kFloat32: {scalar: "float32", array: "[]float32"},
	kFloat64: {scalar: "float64", array: "[]float64"},
	kString:  {scalar: "string", array: "[]string"},
}

func (k kind) isInt() bool { return k >= kUint8 && k <= kUint32 }

// kindOf returns the canonical kind of a SAL type.
func kindOf(t xml.Type) kind {
	switch t {
	case xml.Boolean:
		return kBool
	case xml.Byte:
		return kUint8
	case xml.Short:
		return kInt16
	case xml.Int, xml.Long:
		return kInt32
	case xml.LongLong:
		return kInt64
	case xml.UnsignedShort:
		return kUint16
	case xml.UnsignedInt:
		return kUint32
	case xml.Float:
		return kFloat32
	case xml.Double:
		return kFloat64
	case xml.String:
		return kString
	}
	return kInvalid
}

// Canonical returns the name of the canonical Go type of SAL type t: the
// scalar type ("uint8" for xml.Byte, "int32" for xml.Long, ...) or, when
// array is true, the slice type ("[]float32" for an array of xml.Float).
// Strings are never arrays, so Canonical(xml.String, true) is "string". It
// returns "" for a Type outside the eleven SAL types.
func Canonical(t xml.Type, array bool) string {
	k := kindOf(t)
	if k == kInvalid {
		return ""
	}
	if array && k != kString {
		return kinds[k].array
	}
	return kinds[k].scalar
}

// Zero returns the default value of a scalar of SAL type t as its canonical
// Go type: false, a typed 0, 0.0 or "". It returns nil for a Type outside
// the eleven SAL types.
func Zero(t xml.Type) any { return zeroOf(kindOf(t)) }

func zeroOf(k kind) any {
	switch k {
	case kBool:
		return false
	case kUint8:
		return uint8(0)
	case kInt16:
		return int16(0)
	case kInt32:
		return int32(0)
	case kInt64:
		return int64(0)
	case kUint16:
		return uint16(0)
	case kUint32:
		return uint32(0)
	case kFloat32:
		return float32(0)
	case kFloat64:
		return float64(0)
	case kString:
		return ""
	}
	return nil
}

// makeSlice returns a new canonical slice of n zeros.
func makeSlice(k kind, n int) any {
	switch k {
	case kBool:
		return make([]bool, n)
	case kUint8:
		return make([]uint8, n)
	case kInt16:
		return make([]int16, n)
	case kInt32:
		return make([]int32, n)
	case kInt64:
		return make([]int64, n)
	case kUint16:
		return make([]uint16, n)
	case kUint32:
		return make([]uint32, n)
	case kFloat32:
		return make([]float32, n)
	case kFloat64:
		return make([]float64, n)
	}
	return nil
}

// isScalar reports whether v has the canonical scalar type of k.
func isScalar(k kind, v any) bool {
	switch k {
	case kBool:
		_, ok := v.(bool)
		return ok
	case kUint8:
		_, ok := v.(uint8)
		return ok
	case kInt16:
		_, ok := v.(int16)
		return ok
	case kInt32:
		_, ok := v.(int32)
		return ok
	case kInt64:
		_, ok := v.(int64)
		return ok
	case kUint16:
		_, ok := v.(uint16)
		return ok
	case kUint32:
		_, ok := v.(uint32)
		return ok
	case kFloat32:
		_, ok := v.(float32)
		return ok
	case kFloat64:
		_, ok := v.(float64)
		return ok
	case kString:
		_, ok := v.(string)
		return ok
	}
	return false
}

// sliceLen returns the length of v if v has the canonical slice type of k,
// or -1.
func sliceLen(k kind, v any) int {
	switch k {
	case kBool:
		if s, ok := v.([]bool); ok {
			return len(s)
		}
	case kUint8:
		if s, ok := v.([]uint8); ok {
			return len(s)
		}
	case kInt16:
		if s, ok := v.([]int16); ok {
			return len(s)
		}
	case kInt32:
		if s, ok := v.([]int32); ok {
			return len(s)
		}
	case kInt64:
		if s, ok := v.([]int64); ok {
			return len(s)
		}
	case kUint16:
		if s, ok := v.([]uint16); ok {
			return len(s)
		}
	case kUint32:
		if s, ok := v.([]uint32); ok {
			return len(s)
		}
	case kFloat32:
		if s, ok := v.([]float32); ok {
			return len(s)
		}
	case kFloat64:
		if s, ok := v.([]float64); ok {
			return len(s)
		}
	}
	return -1
}
