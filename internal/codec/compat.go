package codec

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hamba/avro/v2"
)

// Compatibility says whether data written with one schema can be read with
// another, both ways.
type Compatibility struct {
	// Backward is nil when the new schema reads data written with the old one.
	Backward error
	// Forward is nil when the old schema reads data written with the new one.
	Forward error
}

// Compare checks two versions of a record schema by the Avro resolution
// rules (hamba's compatibility check), plus what Avro cannot see but SAL
// relies on: the fixed length of arrays, carried in each array field's
// default. A changed array length makes both directions incompatible.
func Compare(newSchema, oldSchema string) (Compatibility, error) {
	cache := &avro.SchemaCache{}
	ns, err := avro.ParseWithCache(newSchema, "", cache)
	if err != nil {
		return Compatibility{}, fmt.Errorf("codec: new schema: %w", err)
	}
	os, err := avro.ParseWithCache(oldSchema, "", &avro.SchemaCache{})
	if err != nil {
		return Compatibility{}, fmt.Errorf("codec: old schema: %w", err)
	}
	nf, of := schemaFields(newSchema), schemaFields(oldSchema)
	sc := avro.NewSchemaCompatibility()
	c := Compatibility{Backward: sc.Compatible(ns, os), Forward: sc.Compatible(os, ns)}
	if c.Backward != nil || c.Forward != nil {
		if names := changedTypes(nf, of); names != "" {
			if c.Backward != nil {
				c.Backward = fmt.Errorf("field %s: %w", names, c.Backward)
			}
			if c.Forward != nil {
				c.Forward = fmt.Errorf("field %s: %w", names, c.Forward)
			}
		}
	}
	if err := arrayLengths(nf, of); err != nil {
		if c.Backward == nil {
			c.Backward = err
		}
		if c.Forward == nil {
			c.Forward = err
		}
	}
	return c, nil
}

// schemaField is what Compare reads of a record field beside hamba's check.
type schemaField struct {
	Name    string          `json:"name"`
	Type    json.RawMessage `json:"type"`
	Default json.RawMessage `json:"default"`
}

// schemaFields returns the fields of a record schema text, or nil if it
// is not a JSON record.
func schemaFields(text string) []schemaField {
	var doc struct {
		Fields []schemaField `json:"fields"`
	}
	if json.Unmarshal([]byte(text), &doc) != nil {
		return nil
	}
	return doc.Fields
}

// arrayLengths compares the default lengths of array fields present in both.
func arrayLengths(newFields, oldFields []schemaField) error {
	lengths := func(fields []schemaField) map[string]int {
		out := map[string]int{}
		for _, f := range fields {
			var arr []json.RawMessage
			if json.Unmarshal(f.Default, &arr) == nil && f.Default[0] == '[' {
				out[f.Name] = len(arr)
			}
		}
		return out
	}
	nl, ol := lengths(newFields), lengths(oldFields)
	for name, n := range nl {
		if o, ok := ol[name]; ok && o != n {
			return fmt.Errorf("array field %s changed length from %d to %d", name, o, n)
		}
	}
	return nil
}

// changedTypes names the fields present in both schemas whose types differ.
func changedTypes(newFields, oldFields []schemaField) string {
	types := func(fields []schemaField) map[string]string {
		out := map[string]string{}
		for _, f := range fields {
			out[f.Name] = string(f.Type)
		}
		return out
	}
	nt, ot := types(newFields), types(oldFields)
	var names []string
	for name, t := range nt {
		if o, ok := ot[name]; ok && o != t {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
