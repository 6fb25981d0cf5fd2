package codec

import (
	"sync/atomic"
	"unsafe"
)

// Boxing a float64 or a slice into an interface allocates a copy of it on
// the heap, one allocation per field. A fresh record takes these copies
// from slabs it allocates once instead: its float, double and int scalars
// sit in its float32 and float64 backing arrays (one allocation) between
// the array items, and its slice headers in one []sliceHdr. The interfaces then point into the
// slabs, as they would point at their own copies.
//
// This is what the runtime does when it boxes a value (an interface is a
// type word and a pointer to the value), and what reflect does when it
// packs one; the garbage collector follows pointers into the middle of an
// object. Each slot is written once, before it is boxed, and never again:
// nothing else refers to it, so the boxed value is as immutable as a
// runtime copy. Holding one value keeps its whole slab alive, as holding
// one array already keeps the record's shared backing array alive.
//
// The slabs live on the heap: the compiler sees their pointers flow into
// the record (go build -gcflags=-m reports their make as escaping), and
// TestDecode_Independent fails if boxed values are ever shared.

// eface is the layout of an interface value of type any.
type eface struct {
	typ, data unsafe.Pointer
}

// sliceHdr has the layout (and the pointer) of any slice header.
type sliceHdr struct {
	data     unsafe.Pointer
	len, cap int
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	typFloat32  = typeWord(float32(0))
	typFloat64  = typeWord(float64(0))
	typInt32    = typeWord(int32(0))
	typInt16    = typeWord(int16(0))
	typUint16   = typeWord(uint16(0))
	typUint32   = typeWord(uint32(0))
	typInt64    = typeWord(int64(0))
	typFloat32s = typeWord([]float32(nil))
	typFloat64s = typeWord([]float64(nil))
)

// boxAt returns the interface of type typ whose value is at p; p must
// point to a value of that type that is never written again.
func boxAt(typ, p unsafe.Pointer) (v any) {
	*(*eface)(unsafe.Pointer(&v)) = eface{typ: typ, data: p}
	return v
}

// slabs allocates n32 float32 and n64 float64 slots as one array,
// doubles first so that they are aligned, for s.f32 and s.f64.
func (s *dstate) slabs(n32, n64 int) {
	if n32+n64 == 0 {
		return
	}
	slab := make([]uint64, n64+(n32+1)/2)
	if n64 > 0 {
		s.f64 = unsafe.Slice((*float64)(unsafe.Pointer(&slab[0])), n64)
	}
	if n32 > 0 {
		s.f32 = unsafe.Slice((*float32)(unsafe.Pointer(&slab[n64])), n32)
	}
}

// boxInSlab boxes v as type typ in the next free slot of *slab, or as
// usual if the slab is used up.
func boxInSlab[T float32 | float64](slab *[]T, typ unsafe.Pointer, v T) any {
	if len(*slab) == 0 {
		return v
	}
	p := &(*slab)[0]
	*p = v
	*slab = (*slab)[1:]
	return boxAt(typ, unsafe.Pointer(p))
}

func (s *dstate) boxF32(v float32) any { return boxInSlab(&s.f32, typFloat32, v) }

func (s *dstate) boxF64(v float64) any { return boxInSlab(&s.f64, typFloat64, v) }

// boxI32 boxes v in the next free float32 of the slab (an int32 has the
// same size and alignment), or as usual if the slab is used up. Values
// below 256 box without allocating anyway.
func (s *dstate) boxI32(v int32) any {
	if len(s.f32) == 0 || uint32(v) < 256 {
		return v
	}
	p := unsafe.Pointer(&s.f32[0])
	*(*int32)(p) = v
	s.f32 = s.f32[1:]
	return boxAt(typInt32, p)
}

// boxSmall boxes v, an integer no larger than a slot of *slab, in the next
// free slot, or as usual if the slab is used up. Values from 0 to 255 box
// without allocating anyway.
func boxSmall[S float32 | float64, T int16 | uint16 | uint32 | int64](slab *[]S, typ unsafe.Pointer, v T) any {
	if len(*slab) == 0 || uint64(v) < 256 {
		return v
	}
	p := unsafe.Pointer(&(*slab)[0])
	*(*T)(p) = v
	*slab = (*slab)[1:]
	return boxAt(typ, p)
}

// boxSlice boxes the slice header v as type typ in the next free slot of
// the header slab, or as usual if there is none.
func boxSlice[T float32 | float64](s *dstate, typ unsafe.Pointer, v []T) any {
	if len(s.hdr) == 0 {
		return v
	}
	p := unsafe.Pointer(&s.hdr[0])
	*(*[]T)(p) = v
	s.hdr = s.hdr[1:]
	return boxAt(typ, p)
}

func (s *dstate) boxF32s(v []float32) any { return boxSlice(s, typFloat32s, v) }

func (s *dstate) boxF64s(v []float64) any { return boxSlice(s, typFloat64s, v) }

// lastString remembers, boxed, the last value a string field decoded to,
// so that a value that repeats from record to record (the writer's
// identity, the revCode, most event strings) costs no allocation. Strings
// are immutable, so records can share them.
type lastString struct {
	v atomic.Value // any(string)
}

// get returns b as a boxed string.
func (c *lastString) get(b []byte) any {
	v := c.v.Load()
	if s, ok := v.(string); ok && s == string(b) {
		return v
	}
	v = string(b)
	c.v.Store(v)
	return v
}

// Boxes boxes float64 and int32 values into slabs it allocates a chunk at
// a time, as a fresh record's decode does, for code that boxes a few
// values per record (the writer's stamps): one allocation per boxChunk
// values instead of one per value. Each slot is written once, so the
// boxed values are as immutable as the runtime's copies. The zero value
// is ready; a Boxes is not safe for concurrent use.
type Boxes struct {
	slab []uint64
}

// boxChunk is how many values a Boxes slab holds.
const boxChunk = 128

func (b *Boxes) slot() unsafe.Pointer {
	if len(b.slab) == 0 {
		b.slab = make([]uint64, boxChunk)
	}
	p := unsafe.Pointer(&b.slab[0])
	b.slab = b.slab[1:]
	return p
}

// F64 returns v boxed.
func (b *Boxes) F64(v float64) any {
	p := b.slot()
	*(*float64)(p) = v
	return boxAt(typFloat64, p)
}

// I32 returns v boxed (values below 256 box without allocating anyway).
func (b *Boxes) I32(v int32) any {
	if uint32(v) < 256 {
		return v
	}
	p := b.slot()
	*(*int32)(p) = v
	return boxAt(typInt32, p)
}

// Same reports whether a and b are the same boxed value: the same type
// and the same pointer, which is what a value stored once and read back
// is (values compared equal but boxed apart are not the same).
func Same(a, b any) bool {
	return *(*eface)(unsafe.Pointer(&a)) == *(*eface)(unsafe.Pointer(&b))
}
