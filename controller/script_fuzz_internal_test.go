package controller

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// fuzzSchema is the schema of the seeds: a script's usual kinds of
// property, with defaults, a required one and no others allowed.
const fuzzSchema = `
$schema: http://json-schema.org/draft-07/schema#
type: object
properties:
  wait_time: {type: number, minimum: 0, default: 0}
  fail_run: {type: boolean, default: false}
  name: {type: string, default: "x", maxLength: 10}
  targets:
    type: array
    items: {type: object, properties: {ra: {type: number}, dec: {type: number, default: 0}}, required: [ra]}
    default: []
  mode: {enum: [a, b], default: a}
required: [wait_time]
additionalProperties: false
`

// FuzzScriptConfigure: a configure command's config (YAML text) read and
// validated against a schema (YAML text) as the configure command does it,
// defaults filled in, never panics; fails with a text (PyYAML's for the
// mistakes PyErrorText maps) or gives a map with every default present;
// and the same input gives the same result twice.
func FuzzScriptConfigure(f *testing.F) {
	for _, c := range []struct{ schema, config string }{
		{fuzzSchema, ""},
		{fuzzSchema, "wait_time: 1"},
		{fuzzSchema, "wait_time: 1\nfail_run: true\nname: abc\nmode: b"},
		{fuzzSchema, "wait_time: -1"},
		{fuzzSchema, "wait_time: 1\ntargets: [{ra: 1}, {ra: 2, dec: 3}]"},
		{fuzzSchema, "wait_time: 1\ntargets: [{dec: 3}]"},
		{fuzzSchema, "wait_time: 1\nextra: 2"},
		{fuzzSchema, "metadata: {duration: 3}\nwait_time: 2"},
		{fuzzSchema, "wait_time: [1, 2"},
		{fuzzSchema, "wait_time: 'x"},
		{fuzzSchema, "a: b: c"},
		{fuzzSchema, "a: &x 1\nb: *x\nwait_time: *x"},
		{fuzzSchema, "- 1\n- 2"},
		{fuzzSchema, "just text"},
		{fuzzSchema, "0"},
		{fuzzSchema, "wait_time: 1\n---\nb: 2"},
		{"type: object\nproperties: {a: {default: {b: [1]}}}", "c: 1"},
		{"type: object\nproperties: {a: {type: integer, default: 1}}\nadditionalProperties: {type: string}", "b: x\nc: 2"},
		{"", "a: 1"},
	} {
		f.Add(c.schema, c.config)
	}
	f.Fuzz(func(t *testing.T, schemaText, config string) {
		if len(schemaText) > 4096 || len(config) > 4096 {
			return
		}
		doc, err := yamlx.UnmarshalOrdered("schema", []byte(schemaText))
		if err != nil {
			return
		}
		s := &Script{}
		if doc != nil {
			if s.schema, err = jsonschema.CompileValue("fuzz", doc); err != nil {
				return
			}
		}
		conf, err := s.parseConfig(config)
		conf2, err2 := s.parseConfig(config)
		if (err == nil) != (err2 == nil) || err != nil && errText(err) != errText(err2) {
			t.Fatalf("two reads differ: %v, then %v", err, err2)
		}
		if err != nil {
			if errText(err) == "" {
				t.Fatalf("an error without a text: %#v", err)
			}
			return
		}
		if conf.Values == nil || conf.Text != config {
			t.Fatalf("configuration %#v for %q", conf, config)
		}
		if !reflect.DeepEqual(conf.Values, conf2.Values) {
			t.Fatalf("two reads differ: %v, then %v", conf.Values, conf2.Values)
		}
		if _, ok := conf.Values["metadata"]; ok && s.schema != nil && !strings.Contains(schemaText, "metadata") {
			t.Fatalf("metadata kept: %v", conf.Values)
		}
	})
}
