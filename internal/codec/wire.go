package codec

import "github.com/lsst-sal/salgo/topics/wire"

// The Avro binary primitives are topics/wire's, which generated typed
// records call too: one implementation writes the bytes of both paths.

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
