package main

// A small generic Avro binary decoder, driven by the writer's schema text
// as the registry returns it: what lets echo print any SAL topic without
// its XML. It reads every Avro type (records, enums, arrays, maps, unions,
// fixed and the primitives) and keeps record fields in schema order.
// Logical types are shown as their underlying values.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

type avroType struct {
	kind     string // null boolean int long float double bytes string record enum array map union fixed
	name     string // full name of a named type
	fields   []avroField
	items    *avroType // array items, map values
	branches []*avroType
	symbols  []string
	size     int
}

type avroField struct {
	name string
	typ  *avroType
	doc  string
	unit string
}

// parseAvro parses a schema text.
func parseAvro(text string) (*avroType, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("avro schema: %w", err)
	}
	p := &avroParser{named: map[string]*avroType{}}
	return p.parse(v, "")
}

type avroParser struct{ named map[string]*avroType }

func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (p *avroParser) parse(v any, ns string) (*avroType, error) {
	switch x := v.(type) {
	case string:
		switch x {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
			return &avroType{kind: x}, nil
		}
		if t := p.named[fullName(x, ns)]; t != nil {
			return t, nil
		}
		if t := p.named[x]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("avro schema: unknown type %q", x)
	case []any:
		t := &avroType{kind: "union"}
		for _, b := range x {
			bt, err := p.parse(b, ns)
			if err != nil {
				return nil, err
			}
			t.branches = append(t.branches, bt)
		}
		return t, nil
	case map[string]any:
		typ, _ := x["type"].(string)
		if typ == "" {
			if inner, ok := x["type"]; ok { // {"type": {...}} or {"type": [...]}
				return p.parse(inner, ns)
			}
			return nil, errors.New("avro schema: object without a type")
		}
		switch typ {
		case "record", "error", "enum", "fixed":
			name, _ := x["name"].(string)
			if n, ok := x["namespace"].(string); ok && !strings.Contains(name, ".") {
				ns = n
			}
			full := fullName(name, ns)
			if i := strings.LastIndex(full, "."); i >= 0 {
				ns = full[:i]
			}
			t := &avroType{kind: typ, name: full}
			if typ == "error" {
				t.kind = "record"
			}
			p.named[full] = t
			switch t.kind {
			case "record":
				fl, _ := x["fields"].([]any)
				for _, f := range fl {
					fo, ok := f.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("avro schema: %s: bad field %v", full, f)
					}
					ft, err := p.parse(fo["type"], ns)
					if err != nil {
						return nil, fmt.Errorf("avro schema: %s.%v: %w", full, fo["name"], err)
					}
					af := avroField{typ: ft}
					af.name, _ = fo["name"].(string)
					af.doc, _ = fo["description"].(string)
					if af.doc == "" {
						af.doc, _ = fo["doc"].(string)
					}
					af.unit, _ = fo["units"].(string)
					t.fields = append(t.fields, af)
				}
			case "enum":
				sl, _ := x["symbols"].([]any)
				for _, s := range sl {
					str, _ := s.(string)
					t.symbols = append(t.symbols, str)
				}
			case "fixed":
				n, _ := x["size"].(json.Number)
				sz, err := n.Int64()
				if err != nil || sz < 0 {
					return nil, fmt.Errorf("avro schema: fixed %s: bad size", full)
				}
				t.size = int(sz)
			}
			return t, nil
		case "array":
			it, err := p.parse(x["items"], ns)
			if err != nil {
				return nil, err
			}
			return &avroType{kind: "array", items: it}, nil
		case "map":
			it, err := p.parse(x["values"], ns)
			if err != nil {
				return nil, err
			}
			return &avroType{kind: "map", items: it}, nil
		default: // a primitive, possibly with a logicalType
			return p.parse(typ, ns)
		}
	}
	return nil, fmt.Errorf("avro schema: unexpected %T", v)
}

// record is a decoded Avro record with its fields in schema order.
type record struct {
	names  []string
	values []any
}

// get returns the named field's value, or nil.
func (r *record) get(name string) any {
	for i, n := range r.names {
		if n == name {
			return r.values[i]
		}
	}
	return nil
}

type avroReader struct {
	b []byte
}

var errShort = io.ErrUnexpectedEOF

func (r *avroReader) long() (int64, error) {
	u, n := binary.Uvarint(r.b)
	if n <= 0 {
		return 0, errShort
	}
	r.b = r.b[n:]
	return int64(u>>1) ^ -int64(u&1), nil
}

func (r *avroReader) take(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(r.b)) {
		return nil, errShort
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out, nil
}

// decode reads one value of type t.
func (r *avroReader) decode(t *avroType) (any, error) {
	switch t.kind {
	case "null":
		return nil, nil
	case "boolean":
		b, err := r.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case "int":
		v, err := r.long()
		return int32(v), err
	case "long":
		return r.long()
	case "float":
		b, err := r.take(4)
		if err != nil {
			return nil, err
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case "double":
		b, err := r.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case "bytes", "string":
		n, err := r.long()
		if err != nil {
			return nil, err
		}
		b, err := r.take(n)
		if err != nil {
			return nil, err
		}
		if t.kind == "string" {
			return string(b), nil
		}
		return append([]byte(nil), b...), nil
	case "fixed":
		b, err := r.take(int64(t.size))
		return append([]byte(nil), b...), err
	case "enum":
		i, err := r.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || int(i) >= len(t.symbols) {
			return nil, fmt.Errorf("enum %s: index %d out of range", t.name, i)
		}
		return t.symbols[i], nil
	case "union":
		i, err := r.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || int(i) >= len(t.branches) {
			return nil, fmt.Errorf("union branch %d out of range", i)
		}
		return r.decode(t.branches[i])
	case "record":
		rec := &record{names: make([]string, len(t.fields)), values: make([]any, len(t.fields))}
		for i, f := range t.fields {
			v, err := r.decode(f.typ)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.name, err)
			}
			rec.names[i], rec.values[i] = f.name, v
		}
		return rec, nil
	case "array", "map":
		var arr []any
		var m *record
		if t.kind == "map" {
			m = &record{}
		}
		for {
			n, err := r.long()
			if err != nil {
				return nil, err
			}
			if n == 0 {
				break
			}
			if n < 0 { // a block with its byte size
				n = -n
				if _, err := r.long(); err != nil {
					return nil, err
				}
			}
			if n > int64(len(r.b)) && t.items.kind != "null" {
				return nil, errShort
			}
			for range n {
				var key string
				if m != nil {
					k, err := r.decode(&avroType{kind: "string"})
					if err != nil {
						return nil, err
					}
					key = k.(string)
				}
				v, err := r.decode(t.items)
				if err != nil {
					return nil, err
				}
				if m != nil {
					m.names, m.values = append(m.names, key), append(m.values, v)
				} else {
					arr = append(arr, v)
				}
			}
		}
		if m != nil {
			return m, nil
		}
		if arr == nil {
			arr = []any{}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unsupported Avro type %q", t.kind)
}

// decodeAvro decodes a whole value; bytes left over are an error.
func decodeAvro(t *avroType, b []byte) (any, error) {
	r := &avroReader{b: b}
	v, err := r.decode(t)
	if err != nil {
		return nil, err
	}
	if len(r.b) != 0 {
		return v, fmt.Errorf("%d bytes left after the value", len(r.b))
	}
	return v, nil
}

// ---------------------------------------------------------------------
// Rendering of decoded values.

// jsonValue renders v as JSON; NaN and infinities, which JSON lacks, as
// strings; bytes as a list of numbers.
func jsonValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *record:
		b.WriteByte('{')
		for i, n := range x.names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(n))
			b.WriteByte(':')
			jsonValue(b, x.values[i])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			jsonValue(b, e)
		}
		b.WriteByte(']')
	case []byte:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(int(e)))
		}
		b.WriteByte(']')
	case float32:
		jsonFloat(b, float64(x), 32)
	case float64:
		jsonFloat(b, x, 64)
	default:
		j, err := json.Marshal(x)
		if err != nil {
			j = []byte(strconv.Quote(fmt.Sprint(x)))
		}
		b.Write(j)
	}
}

func jsonFloat(b *strings.Builder, f float64, bits int) {
	switch {
	case math.IsNaN(f):
		b.WriteString(`"NaN"`)
	case math.IsInf(f, 1):
		b.WriteString(`"Infinity"`)
	case math.IsInf(f, -1):
		b.WriteString(`"-Infinity"`)
	default:
		b.WriteString(fmtFloat(f, bits))
	}
}

// fmtFloat writes the shortest text that reads back as f, without an
// exponent for ordinary magnitudes (timestamps read better that way).
func fmtFloat(f float64, bits int) string {
	if a := math.Abs(f); a == 0 || (a >= 1e-4 && a < 1e16) {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func toJSON(v any) string {
	var b strings.Builder
	jsonValue(&b, v)
	return b.String()
}

// textValue renders a value for the text (YAML-like) output.
func textValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float32:
		return fmtFloat(float64(x), 32)
	case float64:
		return fmtFloat(x, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = textValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *record, []byte:
		return toJSON(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
