package jsonschema_test

import (
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

func mustCompile(t *testing.T, text string) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Compile("test.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The schema from salobj's DefaultingValidator docstring, plus two
// properties; expectations printed by salobj 8.2.12's DefaultingValidator.
const defaultsSchema = `
type: object
properties:
  number1:
    type: number
    default: 1
  subdict1:
    type: object
    properties:
      number2:
        type: number
        default: 2
      subdict2:
        type: object
        properties:
          number3:
            type: number
            default: 3
  items:
    default: 5
  wait_time:
    type: number
    minimum: 0
    default: 0.5
`

func TestFillDefaultsAtEveryDepthAsDefaultingValidator(t *testing.T) {
	s := mustCompile(t, defaultsSchema)
	want := map[string]any{
		"number1":   int64(1),
		"subdict1":  map[string]any{"number2": int64(2), "subdict2": map[string]any{"number3": int64(3)}},
		"wait_time": 0.5,
	}
	for _, in := range []any{nil, map[string]any{}, map[string]any{"subdict1": map[string]any{}}} {
		got, err := s.FillDefaults(in)
		if err != nil {
			t.Fatalf("%v: %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("FillDefaults(%v) = %v, want %v", in, got, want)
		}
	}
	in := map[string]any{"subdict1": map[string]any{}}
	if _, err := s.FillDefaults(in); err != nil || len(in["subdict1"].(map[string]any)) != 0 {
		t.Errorf("FillDefaults modified its input: %v, %v", in, err)
	}
}

func TestFillDefaultsErrors(t *testing.T) {
	s := mustCompile(t, defaultsSchema)
	_, err := s.FillDefaults(map[string]any{"wait_time": -1})
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a ValidationError", err)
	}
	want := "-1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema['properties']['wait_time']:\n    {'type': 'number', 'minimum': 0, 'default': 0.5}\n\nOn instance['wait_time']:\n    -1"
	if ve.Plain() != want {
		t.Errorf("plain form:\n got %q\nwant %q", ve.Plain(), want)
	}
	for in, want := range map[any]string{int64(5): "<ValidationError: '5 is not a dict'>", "abc": "<ValidationError: 'abc is not a dict'>"} {
		_, err := s.FillDefaults(in)
		if got := pyrepr.Repr(err); got != want {
			t.Errorf("FillDefaults(%v): %s, want %s", in, got, want)
		}
	}
	bad := mustCompile(t, "properties: {x: {type: integer, default: a}}")
	if _, err := bad.FillDefaults(nil); pyrepr.Repr(err) != `<ValidationError: "'a' is not of type 'integer'">` {
		t.Errorf("a bad default gave %v", err)
	}
}

func TestCompileChecksTheMetaschema(t *testing.T) {
	if _, err := jsonschema.Compile("bad.yaml", []byte("type: 5\n")); err == nil || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("type: 5 compiled (err %v); want an error naming bad.yaml", err)
	}
	if _, err := jsonschema.Compile("list.yaml", []byte("- 1\n")); err == nil {
		t.Error("a list compiled as a schema")
	}
}

func TestDraft7WhateverSchemaSays(t *testing.T) {
	// In 2020-12 an items list is not allowed and dependencies is gone; as
	// Draft 7 the tuple form and dependencies apply.
	s := mustCompile(t, "$schema: https://json-schema.org/draft/2020-12/schema\ndependencies: {a: [b]}\n")
	if got := pyrepr.Repr(s.Validate(map[string]any{"a": int64(1)})); got != `<ValidationError: "'b' is a dependency of 'a'">` {
		t.Errorf("got %s", got)
	}
}

func TestFormatIsNotAsserted(t *testing.T) {
	s := mustCompile(t, "type: string\nformat: email\n")
	if err := s.Validate("not an email"); err != nil {
		t.Errorf("format was asserted: %v", err)
	}
}

func TestTitle(t *testing.T) {
	if title, ok := mustCompile(t, "title: Test v2\n").Title(); !ok || title != "Test v2" {
		t.Errorf("Title() = %q, %v", title, ok)
	}
	if _, ok := mustCompile(t, "type: object\n").Title(); ok {
		t.Error("Title() found a title in a schema without one")
	}
}

func TestValuesOfNoJSONType(t *testing.T) {
	s := mustCompile(t, "properties: {d: {type: string}, e: {}}\n")
	d := yamlx.Date{Year: 2024, Month: 1, Day: 1}
	if got := pyrepr.Repr(s.Validate(map[string]any{"d": d})); got != `<ValidationError: "datetime.date(2024, 1, 1) is not of type 'string'">` {
		t.Errorf("a date under type: string gave %s", got)
	}
	if err := s.Validate(map[string]any{"e": d}); err != nil {
		t.Errorf("a date under {} gave %v", err)
	}
	huge, _ := new(big.Int).SetString("12345678901234567890", 10)
	if err := mustCompile(t, "type: integer\nminimum: 0\n").Validate(huge); err != nil {
		t.Errorf("a big int gave %v", err)
	}
}

func TestGoValuesAreAccepted(t *testing.T) {
	s := mustCompile(t, "type: object\nproperties: {n: {type: integer}, l: {type: array, items: {type: string}}}\n")
	if err := s.Validate(map[string]any{"n": 3, "l": []string{"a"}}); err != nil {
		t.Errorf("Go int and []string: %v", err)
	}
	if got := pyrepr.Repr(s.Validate(map[string]any{"n": 1.5})); got != `<ValidationError: "1.5 is not of type 'integer'">` {
		t.Errorf("got %s", got)
	}
}

func TestUnfollowedRefFallsBackToTheLibrary(t *testing.T) {
	// A $ref by $id to a subschema: the walk does not follow it; the
	// library's verdict and words are used.
	s := mustCompile(t, "$id: http://example.com/root.json\ndefinitions:\n  a: {$id: http://example.com/a.json, type: integer}\nproperties:\n  x: {$ref: http://example.com/a.json}\n")
	if err := s.Validate(map[string]any{"x": int64(1)}); err != nil {
		t.Errorf("valid instance: %v", err)
	}
	err := s.Validate(map[string]any{"x": "s"})
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) || !strings.Contains(ve.Message, "/x") {
		t.Errorf("invalid instance gave %v; want the library's error at /x", err)
	}
}
