package jsonschema_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/hostile"
	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// The hostile-bus tests: a configuration that arrives in a command is read
// by internal/yamlx (which refuses documents expanding past a million
// nodes) and may share values through aliases; filling its defaults and
// validating it must not expand what is shared.

// laughsGo is the same as Go values, which internal/jsonschema accepts
// without any limit: nine levels are 9^9 strings once expanded.
func laughsGo(levels int) map[string]any {
	var l any = "lol"
	for i := 0; i < levels; i++ {
		next := make([]any, 9)
		for j := range next {
			next[j] = l
		}
		l = next
	}
	return map[string]any{"data": l}
}

// listSchema describes data as nested lists of strings, so that validation
// goes down every level, with a default at the top.
const listSchema = `
type: object
definitions:
  l:
    anyOf:
      - {type: string}
      - {type: array, items: {$ref: '#/definitions/l'}}
properties:
  wait_time: {type: number, default: 1}
  data: {$ref: '#/definitions/l'}
`

// itemsSchema describes data as nested lists of strings too, with items.
const itemsSchema = `
type: object
definitions:
  l: {type: [string, array], items: {$ref: '#/definitions/l'}}
properties:
  data: {$ref: '#/definitions/l'}
`

// TestHostile_SharedValuesValidatedOnce: six levels from YAML, and nine as
// Go values (387 million strings once expanded), are filled with defaults
// and validated against a schema that goes down every level, in
// allocations independent of the expanded size; the result keeps the
// sharing, as salobj's DefaultingValidator (Python) does.
func TestHostile_SharedValuesValidatedOnce(t *testing.T) {
	s := mustCompile(t, listSchema)
	v, err := yamlx.UnmarshalOrdered("config", []byte(hostile.Laughs(6, "data")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    any
	}{{"6 levels from YAML", v}, {"9 levels as Go values", laughsGo(9)}} {
		var got map[string]any
		n := hostile.Allocated(func() { got, err = s.FillDefaults(c.v) })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n > 1<<20 {
			t.Errorf("%s: FillDefaults allocated %d bytes, want < 1 MiB (shared values expanded?)", c.name, n)
		}
		data := got["data"].([]any)
		if got["wait_time"] != int64(1) || &data[0].([]any)[0] != &data[8].([]any)[0] {
			t.Errorf("%s: wait_time %v; the nine items of data should be one shared list", c.name, got["wait_time"])
		}
		n = hostile.Allocated(func() { err = s.Validate(c.v) })
		if err != nil {
			t.Fatalf("%s: Validate: %v", c.name, err)
		}
		if n > 1<<20 {
			t.Errorf("%s: Validate allocated %d bytes, want < 1 MiB", c.name, n)
		}
	}
	// An error deep in a shared list: the first error, as Python finds it.
	s = mustCompile(t, itemsSchema)
	bad := laughsGo(9)
	bad["data"].([]any)[8] = []any{"lol", int64(5)}
	var verr error
	n := hostile.Allocated(func() { verr = s.Validate(bad) })
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok || ve.Message != "5 is not of type 'string', 'array'" || !reflect.DeepEqual(ve.Path, []any{"data", 8, 1}) {
		t.Errorf("got %v, want 5 is not of type 'string', 'array' at data[8][1]", verr)
	}
	if n > 1<<20 {
		t.Errorf("the first error in a shared bomb: allocated %d bytes, want < 1 MiB", n)
	}
}

// TestHostile_AliasAtTwoSchemaPositions: one mapping, aliased under three
// properties whose schemas have different defaults, gets the union of the
// defaults of the properties it is validated under, in schema order, as in
// Python (salobj 8.2.12's DefaultingValidator, jsonschema 4.26, PyYAML 6:
// the alias is one dict, filled in place), where setdefault keeps the
// first value.
func TestHostile_AliasAtTwoSchemaPositions(t *testing.T) {
	s := mustCompile(t, `
type: object
properties:
  a: {type: object, properties: {p: {type: integer, default: 1}}}
  b: {type: object, properties: {q: {type: integer, default: 2}}}
  c: {type: object, properties: {p: {type: integer, default: 3}}}
`)
	for doc, want := range map[string]string{
		// Python: {'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 1, 'q': 2}} True
		"a: &x {}\nb: *x\nc: *x\n": "{'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 1, 'q': 2}}",
		// Python: {'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 3}}
		"a: &x {}\nb: *x\n": "{'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 3}}",
		// Python: {'b': {'p': 1, 'q': 2}, 'a': {'p': 1, 'q': 2}, 'c': {'p': 3}}
		"b: &x {}\na: *x\n": "{'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}, 'c': {'p': 3}}",
	} {
		in, err := yamlx.UnmarshalOrdered("config", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.FillDefaults(in)
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if r := pyrepr.Repr(got); r != want {
			t.Errorf("%q:\n got %s\nwant %s", doc, r, want)
		}
		if reflect.ValueOf(got["a"]).Pointer() != reflect.ValueOf(got["b"]).Pointer() {
			t.Errorf("%q: a and b are not one map", doc)
		}
		if in.(*yamlx.Map).Len() != strings.Count(doc, "\n") {
			t.Errorf("%q: FillDefaults changed its input", doc)
		}
	}

	// In a list: Python gives {'l': [{'p': 5, 'm': {'z': 9}}, {'p': 5, 'm': {'z': 9}},
	// {'m': {'z': 9}, 'p': 5}, {'m': {'z': 9}, 'p': 5}]} True True.
	s = mustCompile(t, `
type: object
properties:
  l:
    type: array
    items:
      type: object
      properties:
        p: {default: 5}
        m: {type: object, properties: {z: {default: 9}}}
`)
	in, err := yamlx.UnmarshalOrdered("config", []byte("l: [&x {}, *x, {m: &y {}}, {m: *y}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.FillDefaults(in)
	if err != nil {
		t.Fatal(err)
	}
	l := got["l"].([]any)
	want := map[string]any{"p": int64(5), "m": map[string]any{"z": int64(9)}}
	for i, e := range l {
		if !reflect.DeepEqual(e, want) {
			t.Errorf("l[%d] = %v, want %v", i, e, want)
		}
	}
	if reflect.ValueOf(l[0]).Pointer() != reflect.ValueOf(l[1]).Pointer() ||
		reflect.ValueOf(l[2].(map[string]any)["m"]).Pointer() != reflect.ValueOf(l[3].(map[string]any)["m"]).Pointer() {
		t.Error("the aliases are no longer shared")
	}
}

// TestHostile_SharedFillSeenByFinalValidation: defaults filled through one
// use of an alias are seen by the checks of the other uses, as in Python:
// <ValidationError: "{'p': 1, 'q': 2} has too many properties">.
func TestHostile_SharedFillSeenByFinalValidation(t *testing.T) {
	s := mustCompile(t, `
type: object
properties:
  a: {type: object, maxProperties: 1, properties: {p: {default: 1}}}
  b: {type: object, properties: {q: {default: 2}}}
`)
	in, err := yamlx.UnmarshalOrdered("config", []byte("a: &x {}\nb: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.FillDefaults(in)
	if got, want := pyrepr.Repr(err), `<ValidationError: "{'p': 1, 'q': 2} has too many properties">`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestHostile_ErrorUnderSecondUse: an error in a value already found
// invalid under the same schema elsewhere is reported with the path of the
// use that fails, as Python reports it.
func TestHostile_ErrorUnderSecondUse(t *testing.T) {
	s := mustCompile(t, `
properties:
  a: {if: {items: {type: integer}}, then: {}, else: {}}
  b: {items: {type: integer}}
`)
	in, err := yamlx.UnmarshalOrdered("config", []byte("a: &x [1, a]\nb: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	verr := s.Validate(in)
	ve, ok := verr.(*jsonschema.ValidationError)
	if !ok {
		t.Fatalf("got %v", verr)
	}
	// Python's str(error).
	want := "'a' is not of type 'integer'\n\nFailed validating 'type' in schema['properties']['b']['items']:\n    {'type': 'integer'}\n\nOn instance['b'][1]:\n    'a'"
	if ve.Plain() != want {
		t.Errorf("got\n%s\nwant\n%s", ve.Plain(), want)
	}
}

// TestHostile_FailingBranchOverSharedValues: filling defaults, Python walks
// a whole anyOf branch, errors and all (filling as it goes), before trying
// the next; over a shared bomb that is 387 million errors in Python. Here
// the errors of a shared value are found once, and the fills are Python's:
// {'data': [{'p': 1}, {'p': 1}, 'x', {'p': 1}]}.
func TestHostile_FailingBranchOverSharedValues(t *testing.T) {
	s := mustCompile(t, `
type: object
definitions:
  ints: {type: [array, integer], items: {$ref: '#/definitions/ints'}}
properties:
  data:
    anyOf:
      - {items: {type: object, properties: {p: {default: 1}}}}
      - {}
  bomb:
    anyOf:
      - {$ref: '#/definitions/ints'}
      - {}
`)
	in, err := yamlx.UnmarshalOrdered("config", []byte("data: [&m {}, *m, x, {}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	in.(*yamlx.Map).Set("bomb", laughsGo(9)["data"])
	var got map[string]any
	n := hostile.Allocated(func() { got, err = s.FillDefaults(in) })
	if err != nil {
		t.Fatal(err)
	}
	if r, want := pyrepr.Repr(got["data"]), "[{'p': 1}, {'p': 1}, 'x', {'p': 1}]"; r != want {
		t.Errorf("data = %s, want %s", r, want)
	}
	if n > 1<<20 {
		t.Errorf("a failing branch over a 9-level bomb: allocated %d bytes, want < 1 MiB", n)
	}
}
