package codec

import (
	"errors"
	"fmt"

	"github.com/lsst-sal/salgo/internal/avrobin"
)

// maxDepth bounds the nesting of values, so that recursive writer schemas
// cannot exhaust the stack.
const maxDepth = 256

// dstate is the state of one decode: the shared Avro read cursor (its
// readers return topics/wire's sentinels, wrapped with the same details
// as topics/wire's Decoder) and this decoder's own state.
type dstate struct {
	avrobin.Reader
	depth  int
	issues Issues
	// f32 and f64 are the unused parts of the shared backing array of a
	// fresh decode, whose slots hold array items and boxed scalars; hdr
	// is the unused part of the slice header slab (see box.go).
	f32 []float32
	f64 []float64
	hdr []sliceHdr
}

var (
	errDepth   = fmt.Errorf("%w: values nested deeper than %d", ErrInvalid, maxDepth)
	errCorrupt = errors.New("codec: internal error: bad decoder node")
)
