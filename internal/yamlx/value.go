package yamlx

import (
	"fmt"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// Map is a YAML mapping that keeps its keys in the order a Python dict
// would: first insertion wins the position, the last value wins. The zero
// value is an empty map ready to use.
type Map struct {
	keys []string
	vals map[string]any
}

// NewMap returns an empty Map with room for n keys.
func NewMap(n int) *Map {
	return &Map{keys: make([]string, 0, n), vals: make(map[string]any, n)}
}

// Len returns the number of keys.
func (m *Map) Len() int { return len(m.keys) }

// Keys returns the keys in order. The slice must not be modified.
func (m *Map) Keys() []string { return m.keys }

// Get returns the value of key k.
func (m *Map) Get(k string) (any, bool) {
	v, ok := m.vals[k]
	return v, ok
}

// Set sets key k to v, appending k if it is new.
func (m *Map) Set(k string, v any) {
	if m.vals == nil {
		m.vals = make(map[string]any)
	}
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

// Delete removes key k, if present (Python's dict.pop(k, None)).
func (m *Map) Delete(k string) {
	if _, ok := m.vals[k]; !ok {
		return
	}
	delete(m.vals, k)
	for i, x := range m.keys {
		if x == k {
			m.keys = append(m.keys[:i:i], m.keys[i+1:]...)
			break
		}
	}
}

// PyRepr prints the mapping as Python prints a dict, in key order.
func (m *Map) PyRepr() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range m.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyrepr.String(k))
		b.WriteString(": ")
		b.WriteString(pyrepr.Repr(m.vals[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// Date is a date-only YAML timestamp (2024-01-01), which PyYAML reads as a
// datetime.date. It is not a string: a schema's type: string rejects it, as
// it does in Python.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// PyRepr prints datetime.date(2024, 1, 1).
func (d Date) PyRepr() string {
	return fmt.Sprintf("datetime.date(%d, %d, %d)", d.Year, int(d.Month), d.Day)
}

// String returns the ISO form 2024-01-01.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// Timestamp is a YAML timestamp with a time of day, which PyYAML reads as a
// datetime.datetime (to the microsecond; further digits are dropped).
// Naive is true when the text has no zone: Python then gives a naive
// datetime, and Time holds the wall-clock fields as written, in UTC.
type Timestamp struct {
	Time  time.Time
	Naive bool
}

// PyRepr prints datetime.datetime(...) as Python does, with the zone as
// datetime.timezone.utc or datetime.timezone(datetime.timedelta(...)).
func (ts Timestamp) PyRepr() string {
	t := ts.Time
	var b strings.Builder
	fmt.Fprintf(&b, "datetime.datetime(%d, %d, %d, %d, %d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
	us := t.Nanosecond() / 1000
	if t.Second() != 0 || us != 0 {
		fmt.Fprintf(&b, ", %d", t.Second())
	}
	if us != 0 {
		fmt.Fprintf(&b, ", %d", us)
	}
	if !ts.Naive {
		_, off := t.Zone()
		b.WriteString(", tzinfo=")
		b.WriteString(pyTimezone(off))
	}
	b.WriteByte(')')
	return b.String()
}

// pyTimezone is the repr of datetime.timezone(timedelta(seconds=off)).
func pyTimezone(off int) string {
	if off == 0 {
		return "datetime.timezone.utc"
	}
	days, secs := 0, off
	if secs < 0 {
		days = -1
		secs += 86400
	}
	var td string
	switch {
	case days != 0 && secs != 0:
		td = fmt.Sprintf("days=%d, seconds=%d", days, secs)
	case days != 0:
		td = fmt.Sprintf("days=%d", days)
	default:
		td = fmt.Sprintf("seconds=%d", secs)
	}
	return "datetime.timezone(datetime.timedelta(" + td + "))"
}

// Plain returns v with every *Map replaced by a map[string]any, deeply.
// Shared values stay shared: a mapping or list that appears several times
// (a YAML alias) becomes one map or one slice, converted once. Other values
// are returned as they are.
func Plain(v any) any {
	return plainer{maps: map[*Map]map[string]any{}, lists: map[listID][]any{}}.plain(v)
}

type plainer struct {
	maps  map[*Map]map[string]any
	lists map[listID][]any
}

// listID identifies a non-empty slice: its first element and length.
type listID struct {
	first *any
	n     int
}

func (p plainer) plain(v any) any {
	switch x := v.(type) {
	case *Map:
		if m, ok := p.maps[x]; ok {
			return m
		}
		m := make(map[string]any, len(x.keys))
		p.maps[x] = m
		for _, k := range x.keys {
			m[k] = p.plain(x.vals[k])
		}
		return m
	case []any:
		if len(x) == 0 {
			return []any{}
		}
		id := listID{&x[0], len(x)}
		if l, ok := p.lists[id]; ok {
			return l
		}
		out := make([]any, len(x))
		p.lists[id] = out
		for i, e := range x {
			out[i] = p.plain(e)
		}
		return out
	default:
		return v
	}
}
