package main

// Rendering of decoded values (as topics.Tap gives them: hamba/avro's
// generic types) as JSON and as the text of echo's default output.

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// record is a decoded Avro record with its fields in schema order (Tap's
// values are maps, which have none).
type record struct {
	names  []string
	values []any
}

// jsonValue renders v as JSON; NaN and infinities, which JSON lacks, as
// strings; bytes as a list of numbers; maps (nested records, Avro maps)
// with their keys sorted.
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
	case map[string]any:
		r := &record{names: slices.Sorted(maps.Keys(x))}
		for _, k := range r.names {
			r.values = append(r.values, x[k])
		}
		jsonValue(b, r)
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
	case *record, map[string]any, []byte:
		return toJSON(x)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
