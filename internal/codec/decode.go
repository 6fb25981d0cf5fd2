package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/lsst-sal/salgo/xml"
)

// Decoder decodes Avro bodies into records of one reader topic. A Codec's
// decoder reads the topic's own schema; NewResolving builds one that reads
// another writer schema. It is safe for concurrent use.
type Decoder struct {
	topic    string
	steps    []step
	defaults []def
	nfields  int
	// nf32 and nf64 are the item counts of the float and double arrays
	// read on the fast path, for one shared backing array per fresh record.
	nf32, nf64 int
	// sc32 and sc64 are the float or int and the double scalars read on
	// the fast path, boxed from slots after the array items (see box.go),
	// and nhdr the arrays read on the fast path, whose slice headers are
	// boxed from one slab.
	sc32, sc64, nhdr int
	// minWire and minWireScalars are the fewest bytes the items boxed
	// from slabs take on the wire: a fresh decode allocates the slabs only
	// if src is that long, so garbage cannot make it allocate more than
	// its length justifies.
	minWire, minWireScalars int
	stats                   issueCounters
}

// step reads one writer field.
type step struct {
	op    stepOp
	name  string // reader field name ("" for stSkip)
	wname string // writer field name, for errors
	n     *node
	skip  *skipper
	str   *lastString // stString: the last value
	array bool        // the reader field is an array (DecodeInto can reuse it)
	// count and maxLen are the reader field's Count (1 for a scalar) and
	// string bound in bytes (0 for none), for Watch.Suspect.
	count, maxLen int
}

type stepOp uint8

const (
	stValue   stepOp = iota // any node
	stDouble                // writer double into a reader double
	stFloat                 // writer float into a reader float
	stInt                   // writer int into a reader int or long (int32)
	stString                // writer string into a reader string
	stFloats                // writer array<float> into a reader float array
	stDoubles               // writer array<double> into a reader double array
	stSkip                  // writer field unknown to the reader
)

// def sets a reader field the writer does not have to its default.
type def struct {
	name string
	n    *node // an opNull node describing the reader field
}

// node reads one writer value as one reader value.
type node struct {
	op nodeOp
	// w is the writer primitive of an opScalar node.
	w prim
	// sal is the reader's scalar or item type.
	sal xml.Type
	// For opNull: the reader field's shape, and its default if scalar.
	array    bool
	count    int
	nullable bool
	zero     any
	item     *node   // opArray: the items
	alts     []*node // opUnion: one node per writer branch
	msg      string  // opBad: why the branch cannot be read
}

type nodeOp uint8

const (
	opScalar nodeOp = iota // read a writer primitive, convert to sal
	opArray                // read a writer array of item
	opUnion                // read a writer union index, then alts[index]
	opNull                 // read nothing; nil if nullable, else the reader default
	opBad                  // a writer union branch the reader cannot read
)

// prim is an Avro primitive type of the writer.
type prim uint8

const (
	pNull prim = iota
	pBool
	pInt
	pLong
	pFloat
	pDouble
	pString
	pBytes
)

var primNames = [...]string{pNull: "null", pBool: "boolean", pInt: "int", pLong: "long",
	pFloat: "float", pDouble: "double", pString: "string", pBytes: "bytes"}

func (p prim) String() string { return primNames[p] }

// primOf returns the writer primitive the reference writes for a SAL type.
func primOf(t xml.Type) prim {
	switch t.Avro() {
	case "boolean":
		return pBool
	case "int":
		return pInt
	case "long":
		return pLong
	case "float":
		return pFloat
	case "double":
		return pDouble
	}
	return pString
}

// shape is the reader's view of a field.
type shape struct {
	sal      xml.Type
	array    bool
	count    int
	nullable bool
}

func shapeOf(f *xml.Field) shape {
	return shape{sal: f.Type, array: f.Count > 1, count: max(f.Count, 1), nullable: f.Nullable}
}

func (r shape) String() string {
	s := r.sal.String()
	if r.array {
		s += fmt.Sprintf("[%d]", r.count)
	}
	if r.nullable {
		s = "null or " + s
	}
	return s
}

func nullNode(r shape) *node {
	n := &node{op: opNull, sal: r.sal, array: r.array, count: r.count, nullable: r.nullable}
	if !r.array {
		n.zero = zeroScalar(r.sal)
	}
	return n
}

func zeroScalar(t xml.Type) any {
	switch t {
	case xml.Boolean:
		return false
	case xml.Byte:
		return uint8(0)
	case xml.Short:
		return int16(0)
	case xml.Int, xml.Long:
		return int32(0)
	case xml.LongLong:
		return int64(0)
	case xml.UnsignedShort:
		return uint16(0)
	case xml.UnsignedInt:
		return uint32(0)
	case xml.Float:
		return float32(0)
	case xml.Double:
		return float64(0)
	}
	return ""
}

// makeStep picks a fast path for the common shapes.
func makeStep(name, wname string, n *node) step {
	s := step{op: stValue, name: name, wname: wname, n: n}
	switch {
	case n.op == opScalar && n.w == pDouble && n.sal == xml.Double:
		s.op = stDouble
	case n.op == opScalar && n.w == pFloat && n.sal == xml.Float:
		s.op = stFloat
	case n.op == opScalar && n.w == pInt && (n.sal == xml.Int || n.sal == xml.Long):
		s.op = stInt
	case n.op == opScalar && n.w == pString && n.sal == xml.String:
		s.op = stString
		s.str = new(lastString)
	case n.op == opArray && n.item.op == opScalar && n.item.w == pFloat && n.sal == xml.Float:
		s.op = stFloats
	case n.op == opArray && n.item.op == opScalar && n.item.w == pDouble && n.sal == xml.Double:
		s.op = stDoubles
	}
	return s
}

// newNativeDecoder builds the decoder of a topic's own schema. The fields
// were checked by New.
func newNativeDecoder(t *xml.Topic, topic string) *Decoder {
	d := &Decoder{topic: topic, nfields: len(t.Fields), steps: make([]step, 0, len(t.Fields))}
	for _, f := range t.Fields {
		r := shapeOf(f)
		var n *node
		if r.array {
			n = &node{op: opArray, sal: r.sal, item: &node{op: opScalar, w: primOf(r.sal), sal: r.sal}}
		} else {
			n = &node{op: opScalar, w: primOf(r.sal), sal: r.sal}
		}
		if r.nullable {
			n = &node{op: opUnion, alts: []*node{nullNode(r), n}}
		}
		d.addStep(makeStep(f.Name, f.Name, n), f)
	}
	return d
}

// addStep appends st, the step of reader field f.
func (d *Decoder) addStep(st step, f *xml.Field) {
	count := shapeOf(f).count
	switch st.op {
	case stFloats:
		d.nf32 += count
		d.nhdr++
		d.minWire += 4 * count
	case stDoubles:
		d.nf64 += count
		d.nhdr++
		d.minWire += 8 * count
	case stFloat:
		d.sc32++
		d.minWire += 4
		d.minWireScalars += 4
	case stInt:
		d.sc32++
		d.minWire++
		d.minWireScalars++
	case stDouble:
		d.sc64++
		d.minWire += 8
		d.minWireScalars += 8
	case stValue:
		// A scalar read by value() is boxed from the slabs too; any
		// writer value takes at least a byte.
		if st.n.op == opScalar {
			switch st.n.sal {
			case xml.Short, xml.UnsignedShort, xml.UnsignedInt, xml.Int, xml.Long, xml.Float:
				d.sc32++
				d.minWire++
				d.minWireScalars++
			case xml.LongLong, xml.Double:
				d.sc64++
				d.minWire++
				d.minWireScalars++
			}
		}
	}
	st.array, st.count, st.maxLen = count > 1, count, f.MaxLen()
	d.steps = append(d.steps, st)
}

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

// Watch is what a decode reports besides the record, for a reader that
// files and checks every record it decodes: the values of some scalar
// fields, taken as they are decoded instead of looked up in the record
// afterwards, and whether any value could break a rule of the read-side
// check (validate.Validator.Check). Make it with NewWatch; it belongs to
// one decoder and is not safe for concurrent use.
type Watch struct {
	// Vals holds, after DecodeWatch, the value of each field named to
	// NewWatch, in that order (nil for a field the topic lacks).
	Vals []any
	// Suspect is set by DecodeWatch when a decoded value may break a rule
	// of the check: an array whose length is not its field's Count, a
	// string longer than its field's bound (xml.Field.MaxLen) or not valid
	// UTF-8, a nil for a field that is not nullable. It errs on the side
	// of suspicion; when it is false, every field was set to a value of
	// its canonical type that obeys those rules.
	Suspect bool
	// Stamp is the value DecodeWatch stores in the field named to
	// SetStamp, in place of the one on the wire (which is still read).
	// Stamped reports, after DecodeWatch, that it did.
	Stamp   float64
	Stamped bool
	dec     *Decoder
	slots   []int // per step, the index in Vals or -1
	dslots  []int // per default, likewise
	stamp   int   // the step of the stamped field, or -1
}

// SetStamp names the double field whose value DecodeWatch replaces with
// w.Stamp: a reader stores the time it received the record so, without a
// second store into the record after the decode. A field the topic lacks,
// or that this decoder does not read as a plain double, is left as
// decoded, and Stamped stays false.
func (w *Watch) SetStamp(name string) {
	w.stamp = -1
	for i := range w.dec.steps {
		if st := &w.dec.steps[i]; st.name == name && st.op == stDouble {
			w.stamp = i
		}
	}
}

// NewWatch returns a Watch of the named fields for DecodeWatch. Array
// fields cannot be watched: naming one is an error.
func (d *Decoder) NewWatch(names ...string) (*Watch, error) {
	w := &Watch{Vals: make([]any, len(names)), dec: d, slots: make([]int, len(d.steps)), dslots: make([]int, len(d.defaults)), stamp: -1}
	find := func(name string) int {
		for i, n := range names {
			if n == name {
				return i
			}
		}
		return -1
	}
	for i := range d.steps {
		w.slots[i] = -1
		if st := &d.steps[i]; st.op != stSkip {
			if w.slots[i] = find(st.name); w.slots[i] >= 0 && st.array {
				return nil, fmt.Errorf("codec: %s: field %s is an array: it cannot be watched", d.topic, st.name)
			}
		}
	}
	for i := range d.defaults {
		if w.dslots[i] = find(d.defaults[i].name); w.dslots[i] >= 0 && d.defaults[i].n.array {
			return nil, fmt.Errorf("codec: %s: field %s is an array: it cannot be watched", d.topic, d.defaults[i].name)
		}
	}
	return w, nil
}

// DecodeWatch decodes as DecodeIssues does and fills w (see Watch), which
// must come from this decoder's NewWatch.
func (d *Decoder) DecodeWatch(src []byte, rec map[string]any, w *Watch) (Issues, error) {
	if rec == nil {
		return Issues{}, fmt.Errorf("codec: %s: DecodeWatch needs a non-nil map", d.topic)
	}
	if w == nil || w.dec != d {
		return Issues{}, fmt.Errorf("codec: %s: DecodeWatch needs a Watch of this decoder", d.topic)
	}
	return d.decode(src, rec, len(rec) != 0, w)
}

// validString says whether b is a valid value of the step's string field:
// valid UTF-8 and within its bound.
func (st *step) validString(b []byte) bool {
	return (st.maxLen == 0 || len(b) <= st.maxLen) && utf8.Valid(b)
}

// validValue says whether v, decoded by value(), obeys the rules Watch
// watches: arrays of Count items, strings within their bound, nil only
// for a nullable field. An array of strings is always suspect.
func (st *step) validValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return st.n.op == opUnion && nullableNode(st.n)
	case string:
		return !st.array && (st.maxLen == 0 || len(x) <= st.maxLen) && utf8.ValidString(x)
	case []bool:
		return st.array && len(x) == st.count
	case []uint8:
		return st.array && len(x) == st.count
	case []int16:
		return st.array && len(x) == st.count
	case []int32:
		return st.array && len(x) == st.count
	case []int64:
		return st.array && len(x) == st.count
	case []uint16:
		return st.array && len(x) == st.count
	case []uint32:
		return st.array && len(x) == st.count
	case []float32:
		return st.array && len(x) == st.count
	case []float64:
		return st.array && len(x) == st.count
	case []string:
		return false
	}
	return !st.array
}

// nullableNode says whether the union node n is of a nullable reader
// field: its null branch reads as nil.
func nullableNode(n *node) bool {
	for _, a := range n.alts {
		if a.op == opNull {
			return a.nullable
		}
	}
	return false
}

// Stats returns the issues counted by every decode so far (Field is
// empty).
func (d *Decoder) Stats() Issues { return d.stats.load() }

// Topic returns the reader topic's "Component.salName".
func (d *Decoder) Topic() string { return d.topic }

func (d *Decoder) decode(src []byte, rec map[string]any, reuse bool, w *Watch) (Issues, error) {
	s := dstate{b: src}
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
			if len(s.b)-s.off < 8 {
				return s.issues, d.fail(&s, st, ErrTruncated)
			}
			x := math.Float64frombits(binary.LittleEndian.Uint64(s.b[s.off:]))
			if i == stamp {
				x, w.Stamped = w.Stamp, true
			}
			v = s.boxF64(x)
			rec[st.name] = v
			s.off += 8
		case stFloat:
			if len(s.b)-s.off < 4 {
				return s.issues, d.fail(&s, st, ErrTruncated)
			}
			v = s.boxF32(math.Float32frombits(binary.LittleEndian.Uint32(s.b[s.off:])))
			rec[st.name] = v
			s.off += 4
		case stInt:
			x, err := s.int32()
			if err != nil {
				return s.issues, d.fail(&s, st, err)
			}
			v = s.boxI32(x)
			rec[st.name] = v
		case stString:
			b, err := s.bytes()
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
	if s.off != len(s.b) {
		return s.issues, &DecodeError{Topic: d.topic, Offset: s.off,
			Err: fmt.Errorf("%w (%d of %d bytes used)", ErrTrailing, s.off, len(s.b))}
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
	return &DecodeError{Topic: d.topic, Field: st.wname, Offset: s.off, Err: err}
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

// maxDepth bounds the nesting of values, so that recursive writer schemas
// cannot exhaust the stack.
const maxDepth = 256

// dstate is the state of one decode.
type dstate struct {
	b      []byte
	off    int
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
	errVarint  = fmt.Errorf("%w: varint longer than 10 bytes", ErrInvalid)
	errInt     = fmt.Errorf("%w: Avro int outside 32 bits", ErrInvalid)
	errNegLen  = fmt.Errorf("%w: negative length", ErrInvalid)
	errBool    = fmt.Errorf("%w: boolean byte not 0 or 1", ErrInvalid)
	errBlock   = fmt.Errorf("%w: bad block count", ErrInvalid)
	errDepth   = fmt.Errorf("%w: values nested deeper than %d", ErrInvalid, maxDepth)
	errCount   = fmt.Errorf("%w: array or map count larger than the remaining input", ErrTruncated)
	errUnion   = fmt.Errorf("%w: union index out of range", ErrInvalid)
	errCorrupt = errors.New("codec: internal error: bad decoder node")
)

func (s *dstate) long() (int64, error) {
	if s.off < len(s.b) && s.b[s.off] < 0x80 {
		u := uint64(s.b[s.off])
		s.off++
		return int64(u>>1) ^ -int64(u&1), nil
	}
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		if s.off >= len(s.b) {
			return 0, ErrTruncated
		}
		c := s.b[s.off]
		s.off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, errVarint
}

func (s *dstate) int32() (int32, error) {
	v, err := s.long()
	if err != nil {
		return 0, err
	}
	if v != int64(int32(v)) {
		return 0, errInt
	}
	return int32(v), nil
}

func (s *dstate) float32() (float32, error) {
	if len(s.b)-s.off < 4 {
		return 0, ErrTruncated
	}
	v := math.Float32frombits(binary.LittleEndian.Uint32(s.b[s.off:]))
	s.off += 4
	return v, nil
}

func (s *dstate) float64() (float64, error) {
	if len(s.b)-s.off < 8 {
		return 0, ErrTruncated
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(s.b[s.off:]))
	s.off += 8
	return v, nil
}

func (s *dstate) bool() (bool, error) {
	if s.off >= len(s.b) {
		return false, ErrTruncated
	}
	c := s.b[s.off]
	if c > 1 {
		return false, errBool
	}
	s.off++
	return c == 1, nil
}

// bytes reads a length-prefixed string or bytes value; the result aliases
// the input.
func (s *dstate) bytes() ([]byte, error) {
	n, err := s.long()
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, errNegLen
	}
	if n > int64(len(s.b)-s.off) {
		return nil, ErrTruncated
	}
	b := s.b[s.off : s.off+int(n)]
	s.off += int(n)
	return b, nil
}

// blockCount reads an array or map block header and returns the number of
// items (0 at the end). A negative count is followed by the block's size
// in bytes, returned as size (-1 otherwise).
func (s *dstate) blockCount() (n, size int64, err error) {
	n, err = s.long()
	if err != nil || n >= 0 {
		return n, -1, err
	}
	if n == math.MinInt64 {
		return 0, 0, errBlock
	}
	size, err = s.long()
	if err != nil {
		return 0, 0, err
	}
	if size < 0 {
		return 0, 0, errBlock
	}
	return -n, size, nil
}

// itemCount reads a block header of an array whose items take at least
// minSize bytes each and checks the count against the remaining input.
func (s *dstate) itemCount(minSize int) (int, error) {
	n, _, err := s.blockCount()
	if err != nil {
		return 0, err
	}
	if n > int64((len(s.b)-s.off)/minSize) {
		return 0, errCount
	}
	return int(n), nil
}

func (s *dstate) floats(old []float32, reuse bool) ([]float32, bool, error) {
	var out []float32
	inPlace := false
	for {
		n, err := s.itemCount(4)
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
		getFloats(dst, s.b[s.off:s.off+4*n])
		s.off += 4 * n
	}
	return endArray(out, old, reuse, inPlace, nil)
}

func (s *dstate) doubles(old []float64, reuse bool) ([]float64, bool, error) {
	var out []float64
	inPlace := false
	for {
		n, err := s.itemCount(8)
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
		getDoubles(dst, s.b[s.off:s.off+8*n])
		s.off += 8 * n
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
	b := s.b[s.off:]
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
	getItems(v, b[h:end])
	s.off += end + 1
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
func readInts[T integer](s *dstate, it *node, old []T, reuse bool, lo, hi int64) ([]T, bool, error) {
	var out []T
	inPlace := false
	for {
		n, err := s.itemCount(minItemSize(it))
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
		n, err := s.itemCount(minItemSize(it))
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
		n, err := s.itemCount(minItemSize(it))
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
		n, err := s.itemCount(minItemSize(it))
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
		n, err := s.itemCount(minItemSize(it))
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

// branch reads a union index and returns the node of the branch.
func (s *dstate) branch(n *node) (*node, error) {
	i, err := s.int32()
	if err != nil {
		return nil, err
	}
	if i < 0 || int(i) >= len(n.alts) {
		return nil, errUnion
	}
	alt := n.alts[i]
	if alt.op == opBad {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, alt.msg)
	}
	return alt, nil
}

// value reads one reader field value. old is the current map value when
// reuse is set; inPlace reports that old was reused and still holds the
// value.
func (s *dstate) value(n *node, old any, reuse bool) (any, bool, error) {
	if n.op == opUnion {
		var err error
		if n, err = s.branch(n); err != nil {
			return nil, false, err
		}
	}
	switch n.op {
	case opScalar:
		v, err := s.scalar(n)
		return v, false, err
	case opArray:
		return s.array(n, old, reuse)
	case opNull:
		if !n.nullable {
			s.issues.NullDefaults++
		}
		v, inPlace := defaultValue(n, old, reuse)
		return v, inPlace, nil
	}
	return nil, false, errCorrupt
}

// scalar reads a scalar, boxed from the slabs when they have room (see
// box.go).
func (s *dstate) scalar(n *node) (any, error) {
	switch n.sal {
	case xml.Boolean:
		return itemBool(s, n)
	case xml.Byte:
		return itemU8(s, n)
	case xml.Short:
		v, err := itemI16(s, n)
		return boxSmall(&s.f32, typInt16, v), err
	case xml.Int, xml.Long:
		v, err := itemI32(s, n)
		return s.boxI32(v), err
	case xml.LongLong:
		v, err := itemI64(s, n)
		return boxSmall(&s.f64, typInt64, v), err
	case xml.UnsignedShort:
		v, err := itemU16(s, n)
		return boxSmall(&s.f32, typUint16, v), err
	case xml.UnsignedInt:
		v, err := itemU32(s, n)
		return boxSmall(&s.f32, typUint32, v), err
	case xml.Float:
		v, err := itemF32(s, n)
		return s.boxF32(v), err
	case xml.Double:
		v, err := itemF64(s, n)
		return s.boxF64(v), err
	case xml.String:
		return itemString(s, n)
	}
	return nil, errCorrupt
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

// item resolves a union item to its branch. It returns nil for a null
// branch, which it counts as a null replaced by the default.
func (s *dstate) item(n *node) (*node, error) {
	if n.op != opUnion {
		return n, nil
	}
	alt, err := s.branch(n)
	if err != nil {
		return nil, err
	}
	if alt.op == opNull {
		s.issues.NullDefaults++
		return nil, nil
	}
	return alt, nil
}

// intItem reads a writer int or long.
func (s *dstate) intItem(n *node) (int64, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pInt:
		v, err := s.int32()
		return int64(v), err
	case pLong:
		return s.long()
	}
	return 0, errCorrupt
}

func (s *dstate) outOfRange() { s.issues.OutOfRange++ }

func itemU8(s *dstate, n *node) (uint8, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint8 {
		s.outOfRange()
	}
	return uint8(v), err
}

func itemI16(s *dstate, n *node) (int16, error) {
	v, err := s.intItem(n)
	if v < math.MinInt16 || v > math.MaxInt16 {
		s.outOfRange()
	}
	return int16(v), err
}

func itemI32(s *dstate, n *node) (int32, error) {
	v, err := s.intItem(n)
	if v < math.MinInt32 || v > math.MaxInt32 {
		s.outOfRange()
	}
	return int32(v), err
}

func itemI64(s *dstate, n *node) (int64, error) { return s.intItem(n) }

func itemU16(s *dstate, n *node) (uint16, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint16 {
		s.outOfRange()
	}
	return uint16(v), err
}

func itemU32(s *dstate, n *node) (uint32, error) {
	v, err := s.intItem(n)
	if v < 0 || v > math.MaxUint32 {
		s.outOfRange()
	}
	return uint32(v), err
}

func itemF32(s *dstate, n *node) (float32, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pFloat:
		return s.float32()
	case pInt:
		v, err := s.int32()
		return float32(v), err
	case pLong:
		v, err := s.long()
		return float32(v), err
	}
	return 0, errCorrupt
}

func itemF64(s *dstate, n *node) (float64, error) {
	n, err := s.item(n)
	if n == nil {
		return 0, err
	}
	switch n.w {
	case pDouble:
		return s.float64()
	case pFloat:
		v, err := s.float32()
		return float64(v), err
	case pInt:
		v, err := s.int32()
		return float64(v), err
	case pLong:
		v, err := s.long()
		return float64(v), err
	}
	return 0, errCorrupt
}

func itemBool(s *dstate, n *node) (bool, error) {
	n, err := s.item(n)
	if n == nil {
		return false, err
	}
	return s.bool()
}

func itemString(s *dstate, n *node) (string, error) {
	n, err := s.item(n)
	if n == nil {
		return "", err
	}
	b, err := s.bytes()
	return string(b), err
}
