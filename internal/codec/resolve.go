package codec

import (
	"fmt"
	"math"

	"github.com/hamba/avro/v2"

	"github.com/lsst-sal/salgo/internal/avrobin"
	"github.com/lsst-sal/salgo/xml"
)

// NewResolving compiles a decoder that reads bodies written with
// writerSchema (an Avro record schema text, e.g. fetched from the schema
// registry by id) and produces records of the reader topic, following the
// Avro schema resolution rules:
//
//   - Fields are matched by name; record names and namespaces are not
//     compared (the namespace changed from lsst.sal.kafka_<Component> to
//     lsst.sal.<Component> in ts_xml 20).
//   - A reader field missing in the writer takes the reader default: false,
//     0, "", Count zeros for arrays, nil for nullable fields. A missing
//     field declared without a default (xml.Field.NoDefault, .avsc topics)
//     is an error, as in Avro.
//   - A writer field missing in the reader is skipped, whatever its type
//     (records, enums, fixed, bytes, maps, arrays, unions, recursion).
//   - Promotions: int to long, float or double; long to float or double;
//     float to double; string to and from bytes. Values are converted to
//     the reader's canonical Go type.
//   - A writer union is read branch by branch: a branch the reader cannot
//     read fails only the records that use it (ErrInvalid). A null branch
//     for a reader field (or array item) that is not nullable stores the
//     reader default and is counted in Issues.NullDefaults.
//   - A writer non-union value for a nullable reader field is never nil.
//
// Errors wrap ErrIncompatible when a field cannot be resolved. The schema
// is parsed with hamba/avro into a private cache; nothing is cached
// globally, so callers should keep one Decoder per writer schema id.
func NewResolving(writerSchema string, reader *xml.Topic) (*Decoder, error) {
	if reader == nil {
		return nil, fmt.Errorf("codec: nil reader topic")
	}
	topic := reader.String()
	ws, err := avro.ParseWithCache(writerSchema, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("codec: %s: parse writer schema: %w", topic, err)
	}
	wrec, ok := deref(ws).(*avro.RecordSchema)
	if !ok {
		return nil, fmt.Errorf("%w: %s: writer schema is a %s, not a record", ErrIncompatible, topic, ws.Type())
	}
	byName := make(map[string]*xml.Field, len(reader.Fields))
	for i, f := range reader.Fields {
		if f == nil || f.Name == "" {
			return nil, fmt.Errorf("codec: %s: reader field %d has no name", topic, i)
		}
		if _, ok := scalarKind(f.Type); !ok {
			return nil, fmt.Errorf("codec: %s: reader field %s has unknown type %v", topic, f.Name, f.Type)
		}
		if byName[f.Name] != nil {
			return nil, fmt.Errorf("codec: %s: duplicate reader field %s", topic, f.Name)
		}
		byName[f.Name] = f
	}
	d := &Decoder{topic: topic, nfields: len(reader.Fields)}
	used := make(map[string]bool, len(reader.Fields))
	skips := map[*avro.RecordSchema]*skipper{}
	for _, wf := range wrec.Fields() {
		rf := byName[wf.Name()]
		if rf == nil {
			d.steps = append(d.steps, step{op: stSkip, wname: wf.Name(), skip: compileSkip(wf.Type(), skips)})
			continue
		}
		r := shapeOf(rf)
		n, err := resolve(wf.Type(), r)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: field %s: %v", ErrIncompatible, topic, rf.Name, err)
		}
		used[rf.Name] = true
		d.addStep(makeStep(rf.Name, wf.Name(), n), rf)
	}
	for _, f := range reader.Fields {
		if used[f.Name] {
			continue
		}
		if f.NoDefault {
			return nil, fmt.Errorf("%w: %s: field %s is missing in the writer schema and has no default",
				ErrIncompatible, topic, f.Name)
		}
		d.defaults = append(d.defaults, def{name: f.Name, n: nullNode(shapeOf(f))})
	}
	return d, nil
}

func deref(s avro.Schema) avro.Schema {
	for {
		r, ok := s.(*avro.RefSchema)
		if !ok {
			return s
		}
		s = r.Schema()
	}
}

// describe names a writer schema for error messages.
func describe(s avro.Schema) string {
	s = deref(s)
	switch t := s.(type) {
	case avro.NamedSchema:
		return string(t.Type()) + " " + t.FullName()
	case *avro.ArraySchema:
		return "array of " + describe(t.Items())
	case *avro.MapSchema:
		return "map of " + describe(t.Values())
	case *avro.UnionSchema:
		out := "union ["
		for i, b := range t.Types() {
			if i > 0 {
				out += ", "
			}
			out += describe(b)
		}
		return out + "]"
	}
	return string(s.Type())
}

// resolve compiles the reading of writer schema w as reader shape r.
func resolve(w avro.Schema, r shape) (*node, error) {
	w = deref(w)
	if u, ok := w.(*avro.UnionSchema); ok {
		n := &node{op: opUnion, alts: make([]*node, len(u.Types()))}
		readable := false
		var firstErr error
		for i, b := range u.Types() {
			if deref(b).Type() == avro.Null {
				n.alts[i] = nullNode(r)
				readable = readable || r.nullable
				continue
			}
			alt, err := resolve(b, r)
			if err != nil {
				n.alts[i] = &node{op: opBad, msg: fmt.Sprintf("writer union branch %d (%s) cannot be read as %s", i, describe(b), r)}
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			n.alts[i] = alt
			readable = true
		}
		if !readable {
			if firstErr == nil {
				firstErr = fmt.Errorf("writer %s has no branch readable as %s", describe(w), r)
			}
			return nil, firstErr
		}
		return n, nil
	}
	if w.Type() == avro.Null {
		if r.nullable {
			return nullNode(r), nil
		}
		return nil, fmt.Errorf("writer null cannot be read as %s", r)
	}
	if r.array {
		a, ok := w.(*avro.ArraySchema)
		if !ok {
			return nil, fmt.Errorf("writer %s cannot be read as %s", describe(w), r)
		}
		item, err := resolve(a.Items(), shape{sal: r.sal, count: 1})
		if err != nil {
			return nil, fmt.Errorf("array items: %w", err)
		}
		return &node{op: opArray, sal: r.sal, item: item}, nil
	}
	p, ok := w.(*avro.PrimitiveSchema)
	if !ok {
		return nil, fmt.Errorf("writer %s cannot be read as %s", describe(w), r)
	}
	var wp prim
	switch p.Type() {
	case avro.Boolean:
		wp = pBool
	case avro.Int:
		wp = pInt
	case avro.Long:
		wp = pLong
	case avro.Float:
		wp = pFloat
	case avro.Double:
		wp = pDouble
	case avro.String:
		wp = pString
	case avro.Bytes:
		wp = pBytes
	default:
		return nil, fmt.Errorf("writer %s cannot be read as %s", describe(w), r)
	}
	if !promotable(wp, r.sal) {
		return nil, fmt.Errorf("writer %s cannot be read as %s (Avro %s)", wp, r, r.sal.Avro())
	}
	return &node{op: opScalar, w: wp, sal: r.sal}, nil
}

// promotable reports whether Avro lets a writer primitive be read as the
// reader's Avro type for SAL type t.
func promotable(w prim, t xml.Type) bool {
	switch t.Avro() {
	case "boolean":
		return w == pBool
	case "int":
		return w == pInt
	case "long":
		return w == pInt || w == pLong
	case "float":
		return w == pInt || w == pLong || w == pFloat
	case "double":
		return w == pInt || w == pLong || w == pFloat || w == pDouble
	case "string":
		return w == pString || w == pBytes
	}
	return false
}

// skipper skips one writer value of any Avro type.
type skipper struct {
	kind   skipKind
	size   int        // skFixed: the size in bytes (0 for null)
	items  *skipper   // skArray items, skMap values
	fields []*skipper // skRecord
	alts   []*skipper // skUnion
}

type skipKind uint8

const (
	skFixed  skipKind = iota // null, boolean, float, double, fixed, and records of those
	skVarint                 // int, long, enum
	skBytes                  // string, bytes
	skRecord
	skArray
	skMap
	skUnion
)

// compileSkip builds the skipper of writer schema w. Records are memoized
// so that recursive schemas give a cyclic skipper.
func compileSkip(w avro.Schema, recs map[*avro.RecordSchema]*skipper) *skipper {
	w = deref(w)
	if size := fixedSize(w, map[*avro.RecordSchema]bool{}); size >= 0 {
		return &skipper{kind: skFixed, size: size}
	}
	switch t := w.(type) {
	case *avro.RecordSchema:
		if k := recs[t]; k != nil {
			return k
		}
		k := &skipper{kind: skRecord}
		recs[t] = k
		for _, f := range t.Fields() {
			k.fields = append(k.fields, compileSkip(f.Type(), recs))
		}
		return k
	case *avro.ArraySchema:
		return &skipper{kind: skArray, items: compileSkip(t.Items(), recs)}
	case *avro.MapSchema:
		return &skipper{kind: skMap, items: compileSkip(t.Values(), recs)}
	case *avro.UnionSchema:
		k := &skipper{kind: skUnion}
		for _, b := range t.Types() {
			k.alts = append(k.alts, compileSkip(b, recs))
		}
		return k
	}
	switch w.Type() {
	case avro.String, avro.Bytes:
		return &skipper{kind: skBytes}
	}
	return &skipper{kind: skVarint} // int, long, enum
}

// fixedSize returns the encoded size of w if every value of w has the same
// size, else -1.
func fixedSize(w avro.Schema, visiting map[*avro.RecordSchema]bool) int {
	w = deref(w)
	switch t := w.(type) {
	case *avro.FixedSchema:
		return t.Size()
	case *avro.RecordSchema:
		if visiting[t] {
			return -1
		}
		visiting[t] = true
		defer delete(visiting, t)
		total := 0
		for _, f := range t.Fields() {
			n := fixedSize(f.Type(), visiting)
			if n < 0 || total > math.MaxInt32-n {
				return -1
			}
			total += n
		}
		return total
	}
	switch w.Type() {
	case avro.Null:
		return 0
	case avro.Boolean:
		return 1
	case avro.Float:
		return 4
	case avro.Double:
		return 8
	}
	return -1
}

func (s *dstate) skip(k *skipper) error {
	switch k.kind {
	case skFixed:
		if len(s.B)-s.Off < k.size {
			return ErrTruncated
		}
		s.Off += k.size
		return nil
	case skVarint:
		_, err := s.Long()
		return err
	case skBytes:
		_, err := s.Bytes()
		return err
	}
	s.depth++
	if s.depth > maxDepth {
		return errDepth
	}
	err := s.skipNested(k)
	s.depth--
	return err
}

// skipNested skips a record, union, array or map.
func (s *dstate) skipNested(k *skipper) error {
	switch k.kind {
	case skRecord:
		for _, f := range k.fields {
			if err := s.skip(f); err != nil {
				return err
			}
		}
		return nil
	case skUnion:
		i, err := s.Int32()
		if err != nil {
			return err
		}
		if i < 0 || int(i) >= len(k.alts) {
			return avrobin.ErrUnion
		}
		return s.skip(k.alts[i])
	}
	// skArray, skMap
	for {
		n, size, err := s.BlockCount()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		rem := len(s.B) - s.Off
		if size >= 0 {
			if size > int64(rem) {
				return ErrTruncated
			}
			s.Off += int(size)
			continue
		}
		if k.kind == skArray && k.items.kind == skFixed {
			if k.items.size == 0 {
				continue
			}
			if n > int64(rem/k.items.size) {
				return avrobin.ErrCount
			}
			s.Off += int(n) * k.items.size
			continue
		}
		if n > int64(rem) { // every item takes at least one byte
			return avrobin.ErrCount
		}
		for range n {
			if k.kind == skMap {
				if _, err := s.Bytes(); err != nil {
					return err
				}
			}
			if err := s.skip(k.items); err != nil {
				return err
			}
		}
	}
}
