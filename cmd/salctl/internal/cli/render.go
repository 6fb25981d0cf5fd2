package cli

// Rendering of records as JSON and as text: decoded values as topics.Tap
// gives them (hamba/avro's generic types) and SDK records of a topic.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	salxml "github.com/lsst-sal/salgo/xml"
)

// Record is a decoded Avro record with its fields in schema order (Tap's
// values are maps, which have none).
type Record struct {
	Names  []string
	Values []any
}

// JSONValue renders v as JSON; NaN and infinities, which JSON lacks, as
// strings; bytes as a list of numbers; maps (nested records, Avro maps)
// with their keys sorted.
func JSONValue(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case *Record:
		b.WriteByte('{')
		for i, n := range x.Names {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(n))
			b.WriteByte(':')
			JSONValue(b, x.Values[i])
		}
		b.WriteByte('}')
	case map[string]any:
		r := &Record{Names: slices.Sorted(maps.Keys(x))}
		for _, k := range r.Names {
			r.Values = append(r.Values, x[k])
		}
		JSONValue(b, r)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			JSONValue(b, e)
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
		b.WriteString(FmtFloat(f, bits))
	}
}

// FmtFloat is the shortest text that reads back as f, without an
// exponent for ordinary magnitudes (timestamps read better that way).
func FmtFloat(f float64, bits int) string {
	if a := math.Abs(f); a == 0 || (a >= 1e-4 && a < 1e16) {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// ToJSON renders v as JSONValue does.
func ToJSON(v any) string {
	var b strings.Builder
	JSONValue(&b, v)
	return b.String()
}

// TextValue renders a value for the text (YAML-like) output.
func TextValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float32:
		return FmtFloat(float64(x), 32)
	case float64:
		return FmtFloat(x, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = TextValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *Record, map[string]any, []byte:
		return ToJSON(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// FieldsJSON renders an SDK record of t as a JSON object with the topic's
// fields in wire order; NaN and infinities, which JSON lacks, as strings.
func FieldsJSON(t *salxml.Topic, rec map[string]any) string {
	r := &Record{}
	for _, f := range t.Fields {
		v := rec[f.Name]
		switch x := v.(type) { // the generic renderer's shapes
		case []uint8:
			v = []byte(x)
		}
		r.Names, r.Values = append(r.Names, f.Name), append(r.Values, sliceAny(v))
	}
	return ToJSON(r)
}

// sliceAny turns a typed slice into []any for the renderer.
func sliceAny(v any) any {
	switch x := v.(type) {
	case []bool:
		return anys(x)
	case []int16:
		return anys(x)
	case []int32:
		return anys(x)
	case []int64:
		return anys(x)
	case []uint16:
		return anys(x)
	case []uint32:
		return anys(x)
	case []float32:
		return anys(x)
	case []float64:
		return anys(x)
	}
	return v
}

func anys[T any](s []T) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}
