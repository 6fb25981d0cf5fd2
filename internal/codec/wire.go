package codec

import (
	"encoding/binary"
	"math"

	"github.com/lsst-sal/salgo/internal/floatle"
)

// appendLong appends v as an Avro long: a zigzag varint. An Avro int is the
// same encoding of the sign-extended value.
func appendLong(b []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// The bit patterns of Python's float("nan") as a float and as a double:
// the canonical quiet NaNs, which ts_salobj writes for NaN. Go's
// math.NaN() is 0x7ff8000000000001, so the encoder writes every NaN (any
// sign, any payload) as these instead.
const (
	nanBits32 = 0x7fc00000
	nanBits64 = 0x7ff8000000000000
)

// bits32 is math.Float32bits with every NaN made canonical.
func bits32(v float32) uint32 {
	if v != v {
		return nanBits32
	}
	return math.Float32bits(v)
}

// bits64 is math.Float64bits with every NaN made canonical.
func bits64(v float64) uint64 {
	if v != v {
		return nanBits64
	}
	return math.Float64bits(v)
}

func appendFloat(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, bits32(v))
}

func appendDouble(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, bits64(v))
}

func appendString(b []byte, s string) []byte {
	return append(appendLong(b, int64(len(s))), s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// grow makes room for n more bytes in b with at most one allocation.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

// appendArrayHeader appends the count of a one-block array; an empty array
// is only the terminating 0, written by the caller.
func appendArrayHeader(b []byte, n int) []byte {
	if n == 0 {
		return b
	}
	return appendLong(b, int64(n))
}

func appendFloats(b []byte, xs []float32) []byte {
	b = appendArrayHeader(b, len(xs))
	if len(xs) > 0 {
		b = grow(b, 4*len(xs)+1)
		start := len(b)
		b = b[:start+4*len(xs)]
		floatle.PutFloats(b[start:], xs)
	}
	return append(b, 0)
}

func appendDoubles(b []byte, xs []float64) []byte {
	b = appendArrayHeader(b, len(xs))
	if len(xs) > 0 {
		b = grow(b, 8*len(xs)+1)
		start := len(b)
		b = b[:start+8*len(xs)]
		floatle.PutDoubles(b[start:], xs)
	}
	return append(b, 0)
}

type integer interface {
	~uint8 | ~int16 | ~int32 | ~int64 | ~uint16 | ~uint32
}

func appendInts[T integer](b []byte, xs []T) []byte {
	b = appendArrayHeader(b, len(xs))
	for _, x := range xs {
		b = appendLong(b, int64(x))
	}
	return append(b, 0)
}

func appendBools(b []byte, xs []bool) []byte {
	b = appendArrayHeader(b, len(xs))
	for _, x := range xs {
		b = appendBool(b, x)
	}
	return append(b, 0)
}

func appendStrings(b []byte, xs []string) []byte {
	b = appendArrayHeader(b, len(xs))
	for _, x := range xs {
		b = appendString(b, x)
	}
	return append(b, 0)
}
