package wire

import (
	"encoding/binary"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/internal/floatle"
)

// AppendBool appends v as an Avro boolean: one byte, 0 or 1.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendInt appends v as an Avro int (SAL byte, short, int, long and
// unsigned short): a zigzag varint.
func AppendInt(dst []byte, v int32) []byte { return AppendLong(dst, int64(v)) }

// AppendLong appends v as an Avro long (SAL long long and unsigned int):
// a zigzag varint.
func AppendLong(dst []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// AppendFloat appends v as an Avro float: 4 bytes little-endian, every
// NaN as 0x7fc00000.
func AppendFloat(dst []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, floatle.Bits32(v))
}

// AppendDouble appends v as an Avro double: 8 bytes little-endian, every
// NaN as 0x7ff8000000000000.
func AppendDouble(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, floatle.Bits64(v))
}

// AppendString appends s as an Avro string: its length, then its bytes.
func AppendString(dst []byte, s string) []byte {
	return append(AppendLong(dst, int64(len(s))), s...)
}

// AppendUnion appends the branch index of a ["null", T] union: 0 for
// null, 1 for a value (which the caller appends next).
func AppendUnion(dst []byte, null bool) []byte {
	if null {
		return append(dst, 0)
	}
	return append(dst, 2) // zigzag 1
}

// arrayHeader appends the count of a one-block array; an empty array is
// only the terminating 0, which the caller writes.
func arrayHeader(dst []byte, n int) []byte {
	if n == 0 {
		return dst
	}
	return AppendLong(dst, int64(n))
}

// AppendBools appends v as an Avro array of booleans in one block.
func AppendBools(dst []byte, v []bool) []byte {
	dst = arrayHeader(dst, len(v))
	dst = avrobin.Grow(dst, len(v)+1)
	for _, x := range v {
		dst = AppendBool(dst, x)
	}
	return append(dst, 0)
}

func appendInts[T avrobin.Integer](dst []byte, v []T) []byte {
	dst = arrayHeader(dst, len(v))
	for _, x := range v {
		dst = AppendLong(dst, int64(x))
	}
	return append(dst, 0)
}

// AppendBytes appends v as an Avro array of int (a SAL byte array is not
// Avro bytes).
func AppendBytes(dst []byte, v []uint8) []byte { return appendInts(dst, v) }

// AppendShorts appends v as an Avro array of int.
func AppendShorts(dst []byte, v []int16) []byte { return appendInts(dst, v) }

// AppendInts appends v as an Avro array of int.
func AppendInts(dst []byte, v []int32) []byte { return appendInts(dst, v) }

// AppendUShorts appends v as an Avro array of int.
func AppendUShorts(dst []byte, v []uint16) []byte { return appendInts(dst, v) }

// AppendLongs appends v as an Avro array of long.
func AppendLongs(dst []byte, v []int64) []byte { return appendInts(dst, v) }

// AppendUInts appends v as an Avro array of long.
func AppendUInts(dst []byte, v []uint32) []byte { return appendInts(dst, v) }

// AppendFloats appends v as an Avro array of float in one block, every NaN
// as 0x7fc00000.
func AppendFloats(dst []byte, v []float32) []byte {
	dst = arrayHeader(dst, len(v))
	dst = avrobin.Grow(dst, 4*len(v)+1)
	start := len(dst)
	dst = dst[:start+4*len(v)]
	floatle.PutFloats(dst[start:], v)
	return append(dst, 0)
}

// AppendDoubles appends v as an Avro array of double in one block, every
// NaN as 0x7ff8000000000000.
func AppendDoubles(dst []byte, v []float64) []byte {
	dst = arrayHeader(dst, len(v))
	dst = avrobin.Grow(dst, 8*len(v)+1)
	start := len(dst)
	dst = dst[:start+8*len(v)]
	floatle.PutDoubles(dst[start:], v)
	return append(dst, 0)
}
