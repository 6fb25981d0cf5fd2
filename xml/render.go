package xml

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The schema text must be byte-identical to Python's json.dumps of the
// reference's schema dict, so it is rendered here from an ordered value
// model rather than with encoding/json.

type jobj []jkv

type jkv struct {
	k string
	v any // string, bool, nil, int64, jfloat, []any, jobj
}

type jfloat float64

func (o jobj) get(k string) (any, bool) {
	for _, kv := range o {
		if kv.k == k {
			return kv.v, true
		}
	}
	return nil, false
}

func (t *Topic) render() {
	var doc jobj
	if t.avscRaw != nil {
		doc = make(jobj, 0, len(t.avscRaw))
		for _, kv := range t.avscRaw {
			if kv.k == "fields" {
				fields := append([]any(nil), kv.v.([]any)...)
				for _, f := range t.Fields {
					if f.Private {
						fields = append(fields, fieldSchema(f))
					}
				}
				kv.v = fields
			}
			doc = append(doc, kv)
		}
	} else {
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = fieldSchema(f)
		}
		doc = jobj{
			{"type", "record"},
			{"name", t.SALName},
			{"namespace", t.Namespace},
			{"fields", fields},
			{"description", t.Description},
		}
	}
	var b bytes.Buffer
	writePy(&b, doc, -1, 0)
	t.schema = b.String()
	b.Reset()
	writePy(&b, doc, 4, 0)
	sum := md5.Sum(b.Bytes())
	t.rev = hex.EncodeToString(sum[:])[:8]
}

func fieldSchema(f *Field) jobj {
	var def any
	switch f.Type {
	case Boolean:
		def = false
	case Float, Double:
		def = jfloat(0)
	case String:
		def = ""
	default:
		def = int64(0)
	}
	var typ any = f.Type.Avro()
	if f.Count > 1 {
		typ = jobj{{"type", "array"}, {"items", f.Type.Avro()}}
		arr := make([]any, f.Count)
		for i := range arr {
			arr[i] = def
		}
		def = arr
	}
	return jobj{{"name", f.Name}, {"type", typ}, {"default", def}, {"description", f.Description}, {"units", f.Units}}
}

// writePy writes v as Python's json.dumps does: ensure_ascii, separators
// (", ", ": ") without indent, ("," + newline, ": ") with indent >= 0.
func writePy(b *bytes.Buffer, v any, indent, level int) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case jfloat:
		b.WriteString(pyFloat(float64(x)))
	case string:
		pyString(b, x)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			sep(b, i, indent, level+1)
			writePy(b, e, indent, level+1)
		}
		closeSep(b, indent, level)
		b.WriteByte(']')
	case jobj:
		if len(x) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, kv := range x {
			sep(b, i, indent, level+1)
			pyString(b, kv.k)
			b.WriteString(": ")
			writePy(b, kv.v, indent, level+1)
		}
		closeSep(b, indent, level)
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("xml: cannot render %T", v))
	}
}

func sep(b *bytes.Buffer, i, indent, level int) {
	if indent < 0 {
		if i > 0 {
			b.WriteString(", ")
		}
		return
	}
	if i > 0 {
		b.WriteByte(',')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", indent*level))
}

func closeSep(b *bytes.Buffer, indent, level int) {
	if indent >= 0 {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", indent*level))
	}
}

// pyFloat formats like Python's float repr.
func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	a := math.Abs(f)
	if a == 0 || (a >= 1e-4 && a < 1e16) {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

const hexDigits = "0123456789abcdef"

// pyString writes s as json.dumps with ensure_ascii=True.
func pyString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				if c < 0x20 || c == 0x7f {
					u16(b, rune(c))
				} else {
					b.WriteByte(c)
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			u16(b, 0xd800|(r>>10)&0x3ff)
			u16(b, 0xdc00|r&0x3ff)
		} else {
			u16(b, r)
		}
	}
	b.WriteByte('"')
}

func u16(b *bytes.Buffer, r rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[r>>12&0xf])
	b.WriteByte(hexDigits[r>>8&0xf])
	b.WriteByte(hexDigits[r>>4&0xf])
	b.WriteByte(hexDigits[r&0xf])
}

// decodeOrdered reads one JSON value keeping object key order.
func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			var o jobj
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, jkv{k, v})
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			if o == nil {
				o = jobj{}
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return nil, err
		}
		return jfloat(f), nil
	case string, bool, nil:
		return x, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

var avroToSAL = map[string]Type{
	"boolean": Boolean, "int": Int, "long": LongLong,
	"float": Float, "double": Double, "string": String,
}

// parseAvsc reads a camera .avsc file as a telemetry topic of c.
func parseAvsc(file string, data []byte, c *Component, stem string) (*Topic, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, &ParseError{File: file, Msg: "malformed JSON: " + err.Error(), Err: err}
	}
	doc, ok := v.(jobj)
	if !ok {
		return nil, invalidf(file, 1, "top level is not a JSON object")
	}
	if typ, _ := doc.get("type"); typ != "record" {
		return nil, invalidf(file, 1, "schema type is %v, want \"record\"", typ)
	}
	name, _ := doc.get("name")
	if name != stem {
		return nil, invalidf(file, 1, "record name %v differs from the file name %s", name, stem)
	}
	if strings.HasPrefix(stem, "command_") || strings.HasPrefix(stem, "logevent_") || stem == "ackcmd" || !validName(stem) {
		return nil, invalidf(file, 1, "%q is not a valid telemetry topic name", stem)
	}
	ns, _ := doc.get("namespace")
	nss, _ := ns.(string)
	if nss == "" {
		nss = "lsst.sal." + c.Name
	}
	rawFields, _ := doc.get("fields")
	fl, ok := rawFields.([]any)
	if !ok {
		return nil, invalidf(file, 1, "no \"fields\" array")
	}
	t := &Topic{
		Component: c.Name, SALName: stem, Kind: Telemetry, Indexed: c.Indexed,
		FromAvro: true, Namespace: nss, File: file, Line: 1, avscRaw: doc,
	}
	seen := map[string]bool{}
	for i, raw := range fl {
		fo, ok := raw.(jobj)
		if !ok {
			return nil, invalidf(file, 1, "field %d is not an object", i)
		}
		fname, _ := fo.get("name")
		fn, _ := fname.(string)
		if !validName(fn) {
			return nil, invalidf(file, 1, "field %d: bad name %v", i, fname)
		}
		if seen[fn] || isPrivateName(fn) {
			return nil, invalidf(file, 1, "field %s is duplicated or reserved", fn)
		}
		seen[fn] = true
		f := &Field{Name: fn, Count: 1}
		ft, _ := fo.get("type")
		switch x := ft.(type) {
		case string:
			f.Type, ok = avroToSAL[x]
		case []any:
			ok = false
			if len(x) == 2 && x[0] == "null" {
				if s, isStr := x[1].(string); isStr {
					f.Type, ok = avroToSAL[s]
					f.Nullable = true
				}
			}
		default:
			ok = false
		}
		if !ok {
			return nil, invalidf(file, 1, "field %s: unsupported Avro type %s (want a primitive or [\"null\", primitive])", fn, compact(ft))
		}
		if d, has := fo.get("default"); !has {
			f.NoDefault = true
		} else if d != nil && f.Nullable {
			return nil, invalidf(file, 1, "field %s: a [\"null\", T] union must default to null", fn)
		}
		if u, has := fo.get("units"); has {
			f.Units, _ = u.(string)
		}
		if d, has := fo.get("description"); has {
			f.Description, _ = d.(string)
		}
		t.Fields = append(t.Fields, f)
	}
	t.Fields = append(t.Fields, PrivateFields(c.Indexed)...)
	return t, nil
}

func compact(v any) string {
	var b bytes.Buffer
	writePy(&b, v, -1, 0)
	return b.String()
}
