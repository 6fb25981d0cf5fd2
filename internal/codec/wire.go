package codec

import "github.com/lsst-sal/salgo/topics/wire"

// The Avro binary primitives are topics/wire's, which generated typed
// records call too: one implementation writes the bytes of both paths.

// grow makes room for n more bytes in b with at most one allocation.
func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

type integer interface {
	~uint8 | ~int16 | ~int32 | ~int64 | ~uint16 | ~uint32
}

// appendInts appends xs as an Avro array of int or long in one block.
func appendInts[T integer](b []byte, xs []T) []byte {
	if len(xs) > 0 {
		b = wire.AppendLong(b, int64(len(xs)))
	}
	for _, x := range xs {
		b = wire.AppendLong(b, int64(x))
	}
	return append(b, 0)
}

// appendStrings appends xs as an Avro array of strings in one block.
func appendStrings(b []byte, xs []string) []byte {
	if len(xs) > 0 {
		b = wire.AppendLong(b, int64(len(xs)))
	}
	for _, x := range xs {
		b = wire.AppendString(b, x)
	}
	return append(b, 0)
}
