package validate

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/xml"
)

// Option configures Compile and For.
type Option interface{ apply(*config) }

type config struct {
	strict    bool
	unbounded bool
}

type optionFunc func(*config)

func (o optionFunc) apply(c *config) { o(c) }

func configOf(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}

// Strict makes Validate reject a record that lacks a field (ErrMissingField),
// overriding the default of filling the missing field with its default
// value.
func Strict() Option { return optionFunc(func(c *config) { c.strict = true }) }

// Unbounded drops the bound of every string (its IDL_Size, xml.Field's
// MaxLen): ts_salobj does not bound strings over Kafka, so this is what a
// Python peer sends and reads. Every other rule holds, valid UTF-8 among
// them.
func Unbounded() Option { return optionFunc(func(c *config) { c.unbounded = true }) }

// arrayCode is added to the kind of an array field's code.
const arrayCode = 16

// field is what a Validator keeps of one xml.Field.
type field struct {
	name      string
	typ       xml.Type
	kind      kind
	array     bool // Count > 1 (never for strings)
	count     int  // Count for arrays
	maxLen    int  // string bound in bytes; 0 = unbounded
	bound     int  // maxLen, or MaxInt when unbounded
	code      kind // kind, plus arrayCode for arrays: the case of valid
	nullable  bool
	noDefault bool
	def       any // boxed default of a non-nullable scalar
}

// Validator checks and converts the records of one topic. Build it with
// Compile or For. It is immutable and safe for concurrent use; a record
// must not be used concurrently with a call that may change it (Validate,
// Normalize).
type Validator struct {
	topic  *xml.Topic
	strict bool
	fields []field
	index  map[string]int
}

// Compile builds the Validator of topic t from t.Fields (wire order). The
// validator copies what it needs: later changes to t are not seen. A field
// with Count ≤ 1, and every string field, is a scalar; a field whose Type is
// not one of the eleven SAL types fails every record with ErrType; of two
// fields with the same name, the first wins. Compile panics if t is nil.
func Compile(t *xml.Topic, opts ...Option) *Validator {
	if t == nil {
		panic("validate: Compile: nil topic")
	}
	return compile(t, configOf(opts))
}

func compile(t *xml.Topic, c config) *Validator {
	v := &Validator{
		topic:  t,
		strict: c.strict,
		fields: make([]field, 0, len(t.Fields)),
		index:  make(map[string]int, len(t.Fields)),
	}
	for _, xf := range t.Fields {
		if xf == nil {
			continue
		}
		if _, dup := v.index[xf.Name]; dup {
			continue
		}
		k := kindOf(xf.Type)
		f := field{
			name:      xf.Name,
			typ:       xf.Type,
			kind:      k,
			array:     xf.Count > 1 && k != kString,
			maxLen:    xf.MaxLen(),
			nullable:  xf.Nullable,
			noDefault: xf.NoDefault,
			def:       zeroOf(k),
		}
		if c.unbounded {
			f.maxLen = 0
		}
		f.code, f.bound = k, math.MaxInt
		if f.array {
			f.count = xf.Count
			f.code += arrayCode
		}
		if f.maxLen > 0 {
			f.bound = f.maxLen
		}
		v.index[f.name] = len(v.fields)
		v.fields = append(v.fields, f)
	}
	return v
}

// Topic returns the topic the validator was compiled from.
func (v *Validator) Topic() *xml.Topic { return v.topic }

// zero returns a field's default: nil for a nullable field, a fresh slice of
// Count zeros for an array, the typed zero otherwise.
func (f *field) zero() any {
	switch {
	case f.nullable:
		return nil
	case f.array:
		return makeSlice(f.kind, f.count)
	}
	return f.def
}

// New returns a new record holding every field of the topic at its
// default: false, 0 or 0.0 of the canonical type, "", a new slice of Count
// zeros for an array, nil for a nullable field. Fields without a schema
// default (NoDefault) get the same value. Records never share a slice.
func (v *Validator) New() map[string]any {
	rec := make(map[string]any, len(v.fields))
	for i := range v.fields {
		f := &v.fields[i]
		rec[f.name] = f.zero()
	}
	return rec
}

// valid is the fast path of Validate: v already has the canonical type and
// obeys every rule. One switch on the field's precomputed code, with
// a single type assertion to a concrete type per case.
func (f *field) valid(v any) bool {
	switch f.code {
	case kBool:
		if _, ok := v.(bool); ok {
			return true
		}
	case kUint8:
		if _, ok := v.(uint8); ok {
			return true
		}
	case kInt16:
		if _, ok := v.(int16); ok {
			return true
		}
	case kInt32:
		if _, ok := v.(int32); ok {
			return true
		}
	case kInt64:
		if _, ok := v.(int64); ok {
			return true
		}
	case kUint16:
		if _, ok := v.(uint16); ok {
			return true
		}
	case kUint32:
		if _, ok := v.(uint32); ok {
			return true
		}
	case kFloat32:
		if _, ok := v.(float32); ok {
			return true
		}
	case kFloat64:
		if _, ok := v.(float64); ok {
			return true
		}
	case kString:
		if s, ok := v.(string); ok {
			return len(s) <= f.bound && utf8.ValidString(s)
		}
	case arrayCode + kBool:
		if s, ok := v.([]bool); ok {
			return len(s) == f.count
		}
	case arrayCode + kUint8:
		if s, ok := v.([]uint8); ok {
			return len(s) == f.count
		}
	case arrayCode + kInt16:
		if s, ok := v.([]int16); ok {
			return len(s) == f.count
		}
	case arrayCode + kInt32:
		if s, ok := v.([]int32); ok {
			return len(s) == f.count
		}
	case arrayCode + kInt64:
		if s, ok := v.([]int64); ok {
			return len(s) == f.count
		}
	case arrayCode + kUint16:
		if s, ok := v.([]uint16); ok {
			return len(s) == f.count
		}
	case arrayCode + kUint32:
		if s, ok := v.([]uint32); ok {
			return len(s) == f.count
		}
	case arrayCode + kFloat32:
		if s, ok := v.([]float32); ok {
			return len(s) == f.count
		}
	case arrayCode + kFloat64:
		if s, ok := v.([]float64); ok {
			return len(s) == f.count
		}
	}
	return v == nil && f.nullable
}

// complete is the hot path of Validate and Check: it reports whether rec
// holds every field, no other key, and only valid canonical values. It is
// valid inlined into one loop of map lookups; when it returns false the
// caller takes the slow path, which finds and reports what is wrong.
func (v *Validator) complete(rec map[string]any) bool { return v.gather(rec, nil, nil) }

// Values reports, as Validate's fast path does, whether rec holds every
// field, no other key and only valid canonical values, and gathers the
// values into vals in field order (vals[i] is the value of the topic's
// field i), for codec.Codec.AppendValues: a writer then looks each field
// up once. Where known[i] is true (known may be nil), vals[i] already
// holds field i's value, which the caller has stored in rec under the
// field's name: it is checked but not looked up (a writer knows the
// private fields it stamped). When Values returns false (Validate then
// converts, fills defaults or reports what is wrong) vals holds part of
// the record. len(vals) must be the number of fields, and len(known) too
// if it is not nil; Values returns false otherwise.
func (v *Validator) Values(rec map[string]any, vals []any, known []bool) bool {
	if len(vals) != len(v.fields) || known != nil && len(known) != len(v.fields) {
		return false
	}
	return v.gather(rec, vals, known)
}

// NumFields returns the number of fields of the topic (the length of the
// slices Values takes).
func (v *Validator) NumFields() int { return len(v.fields) }

// Field checks one value of the named field by Validate's rules (type,
// range, array length, string bound and UTF-8) and returns it in the
// field's canonical Go type. The error is a join of *FieldError, as
// Validate's; a name that is not a field is ErrUnknownField.
func (v *Validator) Field(name string, val any) (any, error) {
	i, ok := v.index[name]
	if !ok {
		return nil, errors.Join(v.unknownError(name, val))
	}
	f := &v.fields[i]
	if f.valid(val) {
		return val, nil
	}
	var errs []error
	nv, changed := v.fix(f, val, false, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if changed {
		return nv, nil
	}
	return val, nil
}

// FieldIndex returns the index of the named field in field order, or -1.
func (v *Validator) FieldIndex(name string) int {
	if i, ok := v.index[name]; ok {
		return i
	}
	return -1
}

// gather is complete, storing the values in vals if it is not nil and
// taking those marked in known from vals.
func (v *Validator) gather(rec map[string]any, vals []any, known []bool) bool {
	if len(rec) != len(v.fields) {
		return false
	}
	// With as many keys as fields and every field present, no key is unknown.
	for i := range v.fields {
		f := &v.fields[i]
		var val any
		if known != nil && known[i] {
			val = vals[i]
		} else {
			var ok bool
			if val, ok = rec[f.name]; !ok {
				return false
			}
			if vals != nil {
				vals[i] = val
			}
		}
		switch f.code {
		case kBool:
			if _, ok := val.(bool); ok {
				continue
			}
		case kUint8:
			if _, ok := val.(uint8); ok {
				continue
			}
		case kInt16:
			if _, ok := val.(int16); ok {
				continue
			}
		case kInt32:
			if _, ok := val.(int32); ok {
				continue
			}
		case kInt64:
			if _, ok := val.(int64); ok {
				continue
			}
		case kUint16:
			if _, ok := val.(uint16); ok {
				continue
			}
		case kUint32:
			if _, ok := val.(uint32); ok {
				continue
			}
		case kFloat32:
			if _, ok := val.(float32); ok {
				continue
			}
		case kFloat64:
			if _, ok := val.(float64); ok {
				continue
			}
		case kString:
			if s, ok := val.(string); ok {
				if len(s) <= f.bound && utf8.ValidString(s) {
					continue
				}
			}
		case arrayCode + kBool:
			if s, ok := val.([]bool); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kUint8:
			if s, ok := val.([]uint8); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kInt16:
			if s, ok := val.([]int16); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kInt32:
			if s, ok := val.([]int32); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kInt64:
			if s, ok := val.([]int64); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kUint16:
			if s, ok := val.([]uint16); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kUint32:
			if s, ok := val.([]uint32); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kFloat32:
			if s, ok := val.([]float32); ok {
				if len(s) == f.count {
					continue
				}
			}
		case arrayCode + kFloat64:
			if s, ok := val.([]float64); ok {
				if len(s) == f.count {
					continue
				}
			}
		}
		if val != nil || !f.nullable {
			return false
		}
	}
	return true
}

// canonical reports whether v is nil or has the canonical Go type of f,
// whatever its length or content.
func (f *field) canonical(v any) bool {
	if v == nil {
		return true
	}
	if f.array {
		return sliceLen(f.kind, v) >= 0
	}
	return isScalar(f.kind, v)
}

// pending is a write Validate or Normalize makes once the record has passed.
type pending struct {
	name string
	val  any
}

// Validate checks rec against every rule of the topic, for writing, and
// converts its values to the canonical Go types in place.
//
// The rules:
//   - every key must be a field of the topic (ErrUnknownField);
//   - a missing field is set to its default (see New); with Strict, or for a
//     field without a default (NoDefault), it is an error (ErrMissingField);
//   - nil only for a Nullable field (ErrNull);
//   - the value must be of, or exactly convertible to, the canonical type
//     (ErrType), within the range of the SAL type (ErrRange): byte 0..255,
//     short int16, int and long int32, long long int64, unsigned short
//     0..65535, unsigned int 0..4294967295, float ±MaxFloat32;
//   - an array must have exactly Count elements (ErrArrayLength);
//   - a string must be valid UTF-8 (ErrEncoding) and, when the field has a
//     bound, at most MaxLen bytes long (ErrStringLength).
//
// Conversions: an integer field accepts any Go integer type, and a float or
// json.Number with an integral value (3.0 but not 3.5); a float field
// accepts float64 (rounded to float32; NaN and ±Inf pass), float32 (for
// double, exactly), any Go integer type (rounded to the nearest float) and
// json.Number; boolean accepts only bool and string only string. An array
// accepts its canonical slice, []any (as from encoding/json) or a slice of
// another Go number type (of bool for a boolean array), converted element
// by element into a new canonical slice: the caller's slice is never
// modified. Named types (type State int32) are not converted: pass the
// underlying type.
//
// A value already canonical is left as it is: a valid, complete, canonical
// record is not written to and Validate does not allocate for it.
//
// Validate reports every problem in one pass: the error joins (errors.Join)
// one *FieldError per bad field or array element, in field order, then one
// per unknown key in name order. On error rec is left unchanged.
func (v *Validator) Validate(rec map[string]any) error {
	if v.complete(rec) {
		return nil
	}
	return v.run(rec, false)
}

// Normalize converts the values of rec in place to the canonical Go types,
// accepting what Validate accepts plus the shapes hamba/avro's generic
// decoder returns (int for an Avro int, int64 for a long, []any for every
// array, and a one-key map {"float": x} for a union value). Unlike Validate
// it ignores unknown and missing fields, array lengths, string bounds and
// UTF-8, and leaves nil values alone; it still reports (ErrType, ErrRange)
// a value that cannot be represented exactly. On error rec is left
// unchanged.
func (v *Validator) Normalize(rec map[string]any) error { return v.run(rec, true) }

func (v *Validator) run(rec map[string]any, normalize bool) error {
	if rec == nil {
		if normalize || len(v.fields) == 0 {
			return nil
		}
		e := v.newError("", nil, -1, nil, ErrNull, "nil record")
		e.record = true
		return errors.Join(e)
	}
	var (
		errs []error
		buf  [8]pending // the slow path's writes, usually on the stack
		pend = buf[:0]
		hits int
		n0   = len(rec)
	)
	for i := range v.fields {
		f := &v.fields[i]
		val, ok := rec[f.name]
		if !ok {
			if normalize {
				continue
			}
			switch {
			case f.kind == kInvalid:
				errs = append(errs, v.newError(f.name, f, -1, nil, ErrType, "unsupported SAL type "+f.typ.String()))
			case f.noDefault:
				errs = append(errs, v.newError(f.name, f, -1, nil, ErrMissingField, "missing, and the field has no default"))
			case v.strict:
				errs = append(errs, v.newError(f.name, f, -1, nil, ErrMissingField, "missing (strict mode)"))
			default:
				pend = append(pend, pending{f.name, f.zero()})
			}
			continue
		}
		hits++
		if normalize {
			if f.canonical(val) {
				continue
			}
		} else if f.valid(val) {
			continue
		}
		if nv, changed := v.fix(f, val, normalize, &errs); changed {
			pend = append(pend, pending{f.name, nv})
		}
	}
	if !normalize && hits != n0 {
		errs = v.unknown(rec, errs)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, p := range pend {
		rec[p.name] = p.val
	}
	return nil
}

// unknown appends an ErrUnknownField error per key of rec that is not a
// field, in name order.
func (v *Validator) unknown(rec map[string]any, errs []error) []error {
	var names []string
	for k := range rec {
		if _, ok := v.index[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		errs = append(errs, v.unknownError(k, rec[k]))
	}
	return errs
}

// fix is the slow path: it converts val, which failed the fast check, or
// appends its errors. It returns the new value and whether it differs.
func (v *Validator) fix(f *field, val any, normalize bool, errs *[]error) (any, bool) {
	if val == nil {
		*errs = append(*errs, v.nullError(f))
		return nil, false
	}
	if normalize {
		if u, ok := unwrapUnion(f, val); ok {
			if f.canonical(u) {
				return u, true
			}
			val = u
		}
	}
	if f.kind == kInvalid {
		*errs = append(*errs, v.newError(f.name, f, -1, val, ErrType, "unsupported SAL type "+f.typ.String()))
		return nil, false
	}
	if f.array {
		return v.fixArray(f, val, normalize, errs)
	}
	if f.kind == kString {
		s, ok := val.(string)
		if !ok {
			*errs = append(*errs, v.typeError(f, -1, val))
			return nil, false
		}
		if f.maxLen > 0 && len(s) > f.maxLen {
			*errs = append(*errs, v.stringLengthError(f, val, len(s)))
		}
		if !utf8.ValidString(s) {
			*errs = append(*errs, v.encodingError(f, val, s))
		}
		return nil, false
	}
	out, why := convert(f.kind, numOf(val))
	if why != okConv {
		*errs = append(*errs, v.convError(f, -1, val, why))
		return nil, false
	}
	return box(f.kind, out), true
}

// fixArray is fix for an array field.
func (v *Validator) fixArray(f *field, val any, normalize bool, errs *[]error) (any, bool) {
	n, src, _ := sliceInfo(val)
	ok := false
	switch src {
	case srcAny:
		ok = true
	case srcBool:
		ok = f.kind == kBool
	case srcNum:
		ok = f.kind != kBool
	}
	if !ok {
		*errs = append(*errs, v.typeError(f, -1, val))
		return nil, false
	}
	bad := false
	if !normalize && n != f.count {
		*errs = append(*errs, v.arrayLengthError(f, val, n))
		bad = true
	}
	if sliceLen(f.kind, val) >= 0 {
		return nil, false // canonical; only its length was wrong
	}
	dst := makeSlice(f.kind, n)
	if !bad && fill(dst, val) {
		return dst, true
	}
	for i := 0; i < n; i++ {
		out, why := convert(f.kind, elemNum(val, i))
		if why != okConv {
			*errs = append(*errs, v.convError(f, i, elemAny(val, i), why))
			bad = true
			continue
		}
		setElem(dst, i, out)
	}
	if bad {
		return nil, false
	}
	return dst, true
}

// unwrapUnion returns x for a one-key map {"<avro type>": x} (hamba/avro's
// representation of a union value it cannot resolve, and the Avro JSON
// encoding of a union).
func unwrapUnion(f *field, val any) (any, bool) {
	m, ok := val.(map[string]any)
	if !ok || len(m) != 1 {
		return nil, false
	}
	want := f.typ.Avro()
	if f.array {
		want = "array"
	}
	x, ok := m[want]
	return x, ok
}

// unknownError reports a key of the record that is not a field.
func (v *Validator) unknownError(name string, val any) *FieldError {
	return v.newError(name, nil, -1, val, ErrUnknownField, "unknown field (value "+describeTyped(val)+")")
}

// nullError reports a nil value for a field that is not nullable.
func (v *Validator) nullError(f *field) *FieldError {
	return v.newError(f.name, f, -1, nil, ErrNull, "nil value for non-nullable "+f.typeText()+" field")
}

// arrayLengthError reports an array val of n elements instead of Count.
func (v *Validator) arrayLengthError(f *field, val any, n int) *FieldError {
	return v.newError(f.name, f, -1, val, ErrArrayLength, "array length "+strconv.Itoa(n)+", want "+strconv.Itoa(f.count))
}

// stringLengthError reports a string val of n bytes over the field's bound.
func (v *Validator) stringLengthError(f *field, val any, n int) *FieldError {
	return v.newError(f.name, f, -1, val, ErrStringLength, stringLengthMsg(n, f.maxLen))
}

// encodingError reports a string s (held in val) that is not valid UTF-8.
func (v *Validator) encodingError(f *field, val any, s string) *FieldError {
	return v.newError(f.name, f, -1, val, ErrEncoding, encodingMsg(s))
}

func (v *Validator) typeError(f *field, index int, val any) *FieldError {
	t, g := f.typeText(), f.goText()
	if index >= 0 {
		t, g = f.typ.String(), kinds[f.kind].scalar
	}
	return v.newError(f.name, f, index, val, ErrType, "value "+describeTyped(val)+" has wrong type for "+t+" field (want "+g+")")
}

func (v *Validator) convError(f *field, index int, val any, why int) *FieldError {
	switch why {
	case outOfRange:
		return v.newError(f.name, f, index, val, ErrRange,
			"value "+describe(val)+" out of range for "+f.typ.String()+" ("+bounds(f.kind)+")")
	case notInteger:
		return v.newError(f.name, f, index, val, ErrType,
			"value "+describe(val)+" is not an integer, want "+f.typ.String()+" ("+kinds[f.kind].scalar+")")
	}
	return v.typeError(f, index, val)
}

type cacheKey struct {
	t   *xml.Topic
	cfg config
}

var cache sync.Map // cacheKey → *Validator

// For returns the Validator of t with the given options, compiling it on
// first use; later calls with the same topic pointer and options return the
// same Validator. It is safe for concurrent use. The cache keeps every
// topic it has seen for the life of the process, so use it for the
// long-lived topics of a loaded model. For panics if t is nil.
func For(t *xml.Topic, opts ...Option) *Validator {
	if t == nil {
		panic("validate: For: nil topic")
	}
	key := cacheKey{t, configOf(opts)}
	if v, ok := cache.Load(key); ok {
		return v.(*Validator)
	}
	v, _ := cache.LoadOrStore(key, compile(t, key.cfg))
	return v.(*Validator)
}
