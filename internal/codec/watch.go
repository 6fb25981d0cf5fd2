package codec

import (
	"fmt"
	"unicode/utf8"
)

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
