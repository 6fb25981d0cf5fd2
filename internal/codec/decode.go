package codec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/xml"
)

// Decode decodes src into a fresh map holding every reader field, with
// fresh slices and canonical Go types. To save allocations the float and
// double arrays of one record share one backing array (each slice has its
// own length and capacity, so appending to one never overwrites another);
// its float, double and int values are boxed from the same array, and a
// string equal to the field's previous value is the same string (see
// box.go). Issues are counted in Stats; use
// DecodeIssues to see those of one record.
func (d *Decoder) Decode(src []byte) (map[string]any, error) {
	rec := make(map[string]any, d.nfields)
	if _, err := d.decode(src, rec, false, nil); err != nil {
		return nil, err
	}
	return rec, nil
}

// DecodeInto decodes src into rec, which must not be nil. Every reader
// field is set; other keys are left alone. To avoid allocations it reuses
// what rec already holds: a slice of the field's canonical type whose
// length equals the decoded length is overwritten in place (so slices
// taken from rec by an earlier call change), and an equal string is kept.
// Into an empty map it decodes exactly as Decode.
// After an error rec may hold a mix of old and new values.
//
// The error is a *DecodeError wrapping ErrTruncated, ErrInvalid or
// ErrTrailing: src must hold exactly one record, bytes left after it are
// an error. Decoding never panics and never allocates more than the length
// of src justifies. Integers outside the range of the canonical type (and,
// for a resolving decoder, nulls for non-nullable fields) do not fail the
// decode: they are counted in Stats; use DecodeIssues to see them.
func (d *Decoder) DecodeInto(src []byte, rec map[string]any) error {
	_, err := d.DecodeIssues(src, rec)
	return err
}

// DecodeIssues decodes like DecodeInto and returns the issues of this
// record (they are also added to Stats). Issues are only meaningful when
// err is nil.
func (d *Decoder) DecodeIssues(src []byte, rec map[string]any) (Issues, error) {
	if rec == nil {
		return Issues{}, fmt.Errorf("codec: %s: DecodeInto needs a non-nil map", d.topic)
	}
	// An empty map has nothing to reuse: decode as Decode does, with
	// shared backing arrays.
	return d.decode(src, rec, len(rec) != 0, nil)
}

// Stats returns the issues counted by every decode so far (Field is
// empty).
func (d *Decoder) Stats() Issues { return d.stats.load() }

// Topic returns the reader topic's "Component.salName".
func (d *Decoder) Topic() string { return d.topic }

func (d *Decoder) decode(src []byte, rec map[string]any, reuse bool, w *Watch) (Issues, error) {
	s := dstate{Reader: avrobin.Reader{B: src}}
	// One allocation for the values instead of one per value (see
	// box.go), and only when src is long enough to hold what fills it.
	if !reuse && d.minWire <= len(src) {
		s.slabs(d.nf32+d.sc32, d.nf64+d.sc64)
		if d.nhdr > 0 {
			s.hdr = make([]sliceHdr, d.nhdr)
		}
	} else if reuse && d.minWireScalars <= len(src) {
		// Reused slices need no boxing; scalars do.
		s.slabs(d.sc32, d.sc64)
	}
	stamp := -1
	if w != nil {
		w.Suspect, w.Stamped = false, false
		clear(w.Vals)
		stamp = w.stamp
	}
	for i := range d.steps {
		st := &d.steps[i]
		var v any // the field's value, once in rec
		switch st.op {
		case stDouble:
			if len(s.B)-s.Off < 8 {
				return s.issues, d.fail(&s, st, ErrTruncated)
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(s.B[s.Off:]))
			if i == stamp {
				x, w.Stamped = w.Stamp, true
			}
			v = s.boxF64(x)
			rec[st.name] = v
			s.Off += 8
		case stFloat:
			if len(s.B)-s.Off < 4 {
				return s.issues, d.fail(&s, st, ErrTruncated)
			}
			v = s.boxF32(math.Float32frombits(binary.LittleEndian.Uint32(s.B[s.Off:])))
			rec[st.name] = v
			s.Off += 4
		case stInt:
			x, err := s.Int32()
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			v = s.boxI32(x)
			rec[st.name] = v
		case stString:
			b, err := s.Bytes()
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			if w != nil && !st.validString(b) {
				w.Suspect = true
			}
			if reuse {
				if old, ok := rec[st.name].(string); ok && old == string(b) {
					v = old
					break
				}
			}
			v = st.str.get(b)
			rec[st.name] = v
		case stFloats:
			if x := oneBlock(&s, &s.f32); x != nil {
				v = s.boxF32s(x)
				rec[st.name] = v
				if w != nil && len(x) != st.count {
					w.Suspect = true
				}
				break
			}
			var old []float32
			if reuse {
				old, _ = rec[st.name].([]float32)
			}
			x, inPlace, err := s.floats(old, reuse)
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			if !inPlace {
				v = s.boxF32s(x)
				rec[st.name] = v
			}
			if w != nil && len(x) != st.count {
				w.Suspect = true
			}
		case stDoubles:
			if x := oneBlock(&s, &s.f64); x != nil {
				v = s.boxF64s(x)
				rec[st.name] = v
				if w != nil && len(x) != st.count {
					w.Suspect = true
				}
				break
			}
			var old []float64
			if reuse {
				old, _ = rec[st.name].([]float64)
			}
			x, inPlace, err := s.doubles(old, reuse)
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			if !inPlace {
				v = s.boxF64s(x)
				rec[st.name] = v
			}
			if w != nil && len(x) != st.count {
				w.Suspect = true
			}
		case stSkip:
			if err := s.skip(st.skip); err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			continue
		default:
			var old any
			if reuse && st.array {
				old = rec[st.name] // arrays are overwritten in place
			}
			x, inPlace, err := s.value(st.n, old, reuse)
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			if !inPlace {
				rec[st.name] = x
			}
			v = x
			if inPlace {
				v = old
			}
			if w != nil && !st.validValue(v) {
				w.Suspect = true
			}
			if s.issues.Field == "" && !s.issues.Zero() {
				s.issues.Field = st.name
			}
		}
		if w != nil && w.slots[i] >= 0 {
			w.Vals[w.slots[i]] = v
		}
	}
	if s.Off != len(s.B) {
		return s.issues, &DecodeError{Topic: d.topic, Offset: s.Off,
			Err: fmt.Errorf("%w (%d of %d bytes used)", ErrTrailing, s.Off, len(s.B))}
	}
	for i := range d.defaults {
		df := &d.defaults[i]
		var old any
		if reuse && df.n.array {
			old = rec[df.name]
		}
		v, inPlace := defaultValue(df.n, old, reuse)
		if !inPlace {
			rec[df.name] = v
		}
		if w != nil && w.dslots[i] >= 0 {
			w.Vals[w.dslots[i]] = v
		}
	}
	if !s.issues.Zero() {
		d.stats.add(&s.issues)
	}
	return s.issues, nil
}

func (d *Decoder) fail(s *dstate, st *step, err error) error {
	return &DecodeError{Topic: d.topic, Field: st.wname, Offset: s.Off, Err: err}
}

// defaultValue returns the reader default of an opNull node: nil if
// nullable, else zeros. An old slice of the right type and length is
// cleared and reused.
func defaultValue(n *node, old any, reuse bool) (any, bool) {
	if n.nullable {
		return nil, false
	}
	if !n.array {
		return n.zero, false
	}
	switch n.sal {
	case xml.Boolean:
		return zeros[bool](old, reuse, n.count)
	case xml.Byte:
		return zeros[uint8](old, reuse, n.count)
	case xml.Short:
		return zeros[int16](old, reuse, n.count)
	case xml.Int, xml.Long:
		return zeros[int32](old, reuse, n.count)
	case xml.LongLong:
		return zeros[int64](old, reuse, n.count)
	case xml.UnsignedShort:
		return zeros[uint16](old, reuse, n.count)
	case xml.UnsignedInt:
		return zeros[uint32](old, reuse, n.count)
	case xml.Float:
		return zeros[float32](old, reuse, n.count)
	case xml.Double:
		return zeros[float64](old, reuse, n.count)
	}
	return zeros[string](old, reuse, n.count)
}

func zeros[T any](old any, reuse bool, n int) (any, bool) {
	if reuse {
		if o, ok := old.([]T); ok && len(o) == n {
			clear(o)
			return o, true
		}
	}
	return make([]T, n), false
}
