package codec

import (
	"math"
	"slices"
	"unsafe"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/internal/floatle"
	"github.com/lsst-sal/salgo/xml"
)

func (s *dstate) floats(old []float32, reuse bool) ([]float32, bool, error) {
	var out []float32
	inPlace := false
	for {
		n, err := s.ItemCount(4)
		if err != nil {
			return nil, false, err
		}
		if n == 0 {
			break
		}
		var dst []float32
		if out == nil && !reuse && n <= len(s.f32) {
			out, dst, s.f32 = s.f32[:n:n], s.f32[:n:n], s.f32[n:]
		} else {
			out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		}
		floatle.GetFloats(dst, s.B[s.Off:s.Off+4*n])
		s.Off += 4 * n
	}
	return endArray(out, old, reuse, inPlace, nil)
}

func (s *dstate) doubles(old []float64, reuse bool) ([]float64, bool, error) {
	var out []float64
	inPlace := false
	for {
		n, err := s.ItemCount(8)
		if err != nil {
			return nil, false, err
		}
		if n == 0 {
			break
		}
		var dst []float64
		if out == nil && !reuse && n <= len(s.f64) {
			out, dst, s.f64 = s.f64[:n:n], s.f64[:n:n], s.f64[n:]
		} else {
			out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		}
		floatle.GetDoubles(dst, s.B[s.Off:s.Off+8*n])
		s.Off += 8 * n
	}
	return endArray(out, old, reuse, inPlace, nil)
}

// oneBlock reads a float or double array written as one block of fewer
// than 8,192 items (count, items, 0, as fastavro and Append write it) into
// the next items of the slab. It returns nil, having read nothing, for an
// empty array, any other layout, or when the slab is too short (always
// when DecodeInto reuses a map: it has no slab); the general path then
// reads the array, with the same result.
func oneBlock[T float32 | float64](s *dstate, slab *[]T) []T {
	b := s.B[s.Off:]
	var n, h int
	switch {
	case len(b) > 0 && b[0] < 0x80:
		n, h = int(b[0]), 1
	case len(b) > 1 && b[1] < 0x80:
		n, h = int(b[0]&0x7f)|int(b[1])<<7, 2
	default:
		return nil
	}
	if n&1 != 0 { // a negative count: a block with its byte size
		return nil
	}
	n >>= 1 // zigzag
	size := int(unsafe.Sizeof(T(0)))
	end := h + size*n // the block's terminating 0
	if n == 0 || n > len(*slab) || end >= len(b) || b[end] != 0 {
		return nil
	}
	v := (*slab)[:n:n]
	*slab = (*slab)[n:]
	floatle.GetItems(v, b[h:end])
	s.Off += end + 1
	return v
}

// nextBlock makes room for a block of n items: in old itself when it is
// the first block and old has exactly n items, else in a new slice.
func nextBlock[T any](out, old []T, reuse, inPlace bool, n int) ([]T, []T, bool) {
	if out == nil && reuse && n == len(old) {
		return old, old, true
	}
	if inPlace {
		out = slices.Clone(out)
	}
	l := len(out)
	out = slices.Grow(out, n)[:l+n]
	return out, out[l:], false
}

func endArray[T any](out, old []T, reuse, inPlace bool, err error) ([]T, bool, error) {
	if err != nil {
		return nil, false, err
	}
	if out == nil {
		if reuse && old != nil && len(old) == 0 {
			return old, true, nil
		}
		return []T{}, false, nil
	}
	return out, inPlace, nil
}

// minItemSize is the smallest encoding of a writer array item.
func minItemSize(it *node) int {
	if it.op == opScalar {
		switch it.w {
		case pFloat:
			return 4
		case pDouble:
			return 8
		}
	}
	return 1
}

// The array readers below share their block loop but not a callback: a
// function value taking s would make every dstate escape to the heap.

// readInts reads a writer array of int or long items into integers of
// type T, counting values outside [lo, hi].
func readInts[T avrobin.Integer](s *dstate, it *node, old []T, reuse bool, lo, hi int64) ([]T, bool, error) {
	var out []T
	inPlace := false
	for {
		n, err := s.ItemCount(minItemSize(it))
		if err != nil || n == 0 {
			return endArray(out, old, reuse, inPlace, err)
		}
		var dst []T
		out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		for i := range dst {
			v, err := s.intItem(it)
			if err != nil {
				return nil, false, err
			}
			if v < lo || v > hi {
				s.outOfRange()
			}
			dst[i] = T(v)
		}
	}
}

func readF32s(s *dstate, it *node, old []float32, reuse bool) ([]float32, bool, error) {
	var out []float32
	inPlace := false
	for {
		n, err := s.ItemCount(minItemSize(it))
		if err != nil || n == 0 {
			return endArray(out, old, reuse, inPlace, err)
		}
		var dst []float32
		out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		for i := range dst {
			if dst[i], err = itemF32(s, it); err != nil {
				return nil, false, err
			}
		}
	}
}

func readF64s(s *dstate, it *node, old []float64, reuse bool) ([]float64, bool, error) {
	var out []float64
	inPlace := false
	for {
		n, err := s.ItemCount(minItemSize(it))
		if err != nil || n == 0 {
			return endArray(out, old, reuse, inPlace, err)
		}
		var dst []float64
		out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		for i := range dst {
			if dst[i], err = itemF64(s, it); err != nil {
				return nil, false, err
			}
		}
	}
}

func readBools(s *dstate, it *node, old []bool, reuse bool) ([]bool, bool, error) {
	var out []bool
	inPlace := false
	for {
		n, err := s.ItemCount(minItemSize(it))
		if err != nil || n == 0 {
			return endArray(out, old, reuse, inPlace, err)
		}
		var dst []bool
		out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		for i := range dst {
			if dst[i], err = itemBool(s, it); err != nil {
				return nil, false, err
			}
		}
	}
}

func readStrings(s *dstate, it *node, old []string, reuse bool) ([]string, bool, error) {
	var out []string
	inPlace := false
	for {
		n, err := s.ItemCount(minItemSize(it))
		if err != nil || n == 0 {
			return endArray(out, old, reuse, inPlace, err)
		}
		var dst []string
		out, dst, inPlace = nextBlock(out, old, reuse, inPlace, n)
		for i := range dst {
			if dst[i], err = itemString(s, it); err != nil {
				return nil, false, err
			}
		}
	}
}

func wrap[T any](v []T, inPlace bool, err error) (any, bool, error) {
	if err != nil {
		return nil, false, err
	}
	return v, inPlace, nil
}

func (s *dstate) array(n *node, old any, reuse bool) (any, bool, error) {
	it := n.item
	switch n.sal {
	case xml.Boolean:
		o, _ := old.([]bool)
		return wrap(readBools(s, it, o, reuse))
	case xml.Byte:
		o, _ := old.([]uint8)
		return wrap(readInts(s, it, o, reuse, 0, math.MaxUint8))
	case xml.Short:
		o, _ := old.([]int16)
		return wrap(readInts(s, it, o, reuse, math.MinInt16, math.MaxInt16))
	case xml.Int, xml.Long:
		o, _ := old.([]int32)
		return wrap(readInts(s, it, o, reuse, math.MinInt32, math.MaxInt32))
	case xml.LongLong:
		o, _ := old.([]int64)
		return wrap(readInts(s, it, o, reuse, math.MinInt64, math.MaxInt64))
	case xml.UnsignedShort:
		o, _ := old.([]uint16)
		return wrap(readInts(s, it, o, reuse, 0, math.MaxUint16))
	case xml.UnsignedInt:
		o, _ := old.([]uint32)
		return wrap(readInts(s, it, o, reuse, 0, math.MaxUint32))
	case xml.Float:
		o, _ := old.([]float32)
		if it.op == opScalar && it.w == pFloat {
			return wrap(s.floats(o, reuse))
		}
		return wrap(readF32s(s, it, o, reuse))
	case xml.Double:
		o, _ := old.([]float64)
		if it.op == opScalar && it.w == pDouble {
			return wrap(s.doubles(o, reuse))
		}
		return wrap(readF64s(s, it, o, reuse))
	case xml.String:
		o, _ := old.([]string)
		return wrap(readStrings(s, it, o, reuse))
	}
	return nil, false, errCorrupt
}
