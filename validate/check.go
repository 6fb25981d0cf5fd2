package validate

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Report counts what Check found wrong with a received record. The zero
// Report means the record is canonical and complete.
type Report struct {
	// Type counts values whose Go type is not the canonical one, nil values
	// of non-nullable fields included.
	Type int
	// ArrayLength counts arrays that do not have exactly Count elements (the
	// reference only warns).
	ArrayLength int
	// StringLength counts strings longer than their bound (the reference
	// does not check bounds).
	StringLength int
	// Encoding counts strings that are not valid UTF-8.
	Encoding int
	// Missing counts fields absent from the record.
	Missing int
	// Unknown counts keys that are not fields of the topic.
	Unknown int
	// First describes the first violation found (fields in wire order, then
	// unknown keys by name), or is nil.
	First *FieldError
}

// OK reports whether no violation was counted.
func (r Report) OK() bool {
	return r.Type == 0 && r.ArrayLength == 0 && r.StringLength == 0 &&
		r.Encoding == 0 && r.Missing == 0 && r.Unknown == 0
}

// Total returns the number of violations counted.
func (r Report) Total() int {
	return r.Type + r.ArrayLength + r.StringLength + r.Encoding + r.Missing + r.Unknown
}

// String returns "ok", or the counts and the first violation:
//
//	2 violations (1 type, 1 array length); first: validate: Example.arrays: field int0: array length 4, want 5
func (r Report) String() string {
	if r.OK() {
		return "ok"
	}
	var b strings.Builder
	n := r.Total()
	b.WriteString(strconv.Itoa(n))
	if n == 1 {
		b.WriteString(" violation (")
	} else {
		b.WriteString(" violations (")
	}
	sep := ""
	for _, c := range []struct {
		n    int
		name string
	}{
		{r.Type, "type"}, {r.ArrayLength, "array length"}, {r.StringLength, "string length"},
		{r.Encoding, "encoding"}, {r.Missing, "missing"}, {r.Unknown, "unknown"},
	} {
		if c.n > 0 {
			b.WriteString(sep)
			b.WriteString(strconv.Itoa(c.n))
			b.WriteByte(' ')
			b.WriteString(c.name)
			sep = ", "
		}
	}
	b.WriteByte(')')
	if r.First != nil {
		b.WriteString("; first: ")
		b.WriteString(r.First.Error())
	}
	return b.String()
}

// Check inspects a received record without changing or rejecting it, the
// way the Python reference accepts what it reads, and counts the
// violations: values not of the canonical Go type (as Validate would
// produce), arrays of the wrong length, strings over their bound or not
// UTF-8, missing fields and unknown keys. It expects canonical values (from
// the SDK's decoder) and is cheap for them: it does not allocate unless it
// finds a violation. It never panics, whatever rec holds.
func (v *Validator) Check(rec map[string]any) Report {
	var r Report
	if v.complete(rec) {
		return r
	}
	hits := 0
	for i := range v.fields {
		f := &v.fields[i]
		val, ok := rec[f.name]
		if !ok {
			r.Missing++
			if r.First == nil {
				r.First = v.newError(f.name, f, -1, val, ErrMissingField, "missing")
			}
			continue
		}
		hits++
		if !f.valid(val) {
			v.checkField(f, val, &r)
		}
	}
	if hits != len(rec) {
		first := ""
		for k := range rec {
			if _, ok := v.index[k]; !ok {
				if r.Unknown == 0 || k < first {
					first = k
				}
				r.Unknown++
			}
		}
		if r.Unknown > 0 && r.First == nil {
			r.First = v.unknownError(first, rec[first])
		}
	}
	return r
}

// checkField counts the violations of one present field that failed the
// fast check.
func (v *Validator) checkField(f *field, val any, r *Report) {
	if val == nil {
		if !f.nullable {
			r.Type++
			if r.First == nil {
				r.First = v.nullError(f)
			}
		}
		return
	}
	if f.array {
		n := sliceLen(f.kind, val)
		if n < 0 {
			r.Type++
			if r.First == nil {
				r.First = v.typeError(f, -1, val)
			}
			if n, _, _ = sliceInfo(val); n < 0 {
				return
			}
		}
		if n != f.count {
			r.ArrayLength++
			if r.First == nil {
				r.First = v.arrayLengthError(f, val, n)
			}
		}
		return
	}
	if f.kind == kString {
		s, ok := val.(string)
		if !ok {
			r.Type++
			if r.First == nil {
				r.First = v.typeError(f, -1, val)
			}
			return
		}
		if f.maxLen > 0 && len(s) > f.maxLen {
			r.StringLength++
			if r.First == nil {
				r.First = v.stringLengthError(f, val, len(s))
			}
		}
		if !utf8.ValidString(s) {
			r.Encoding++
			if r.First == nil {
				r.First = v.encodingError(f, val, s)
			}
		}
		return
	}
	if !isScalar(f.kind, val) {
		r.Type++
		if r.First == nil {
			r.First = v.typeError(f, -1, val)
		}
	}
}
