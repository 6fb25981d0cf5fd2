package yamlx_test

import (
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"

	"github.com/lsst-sal/salgo/internal/wirefixture"
)

// pyCases: each document, and repr(yaml.safe_load(document)) as printed by
// PyYAML 6.0.3 on CPython 3.11.7 (recorded once; the test does not run
// Python). A non-empty third column is the Python exception type: the Go
// reader must fail with an *yamlx.Error on line 1 instead.
var pyCases = []struct{ doc, repr, pyErr string }{
	{"k: yes\n", "{'k': True}", ""},
	{"k: Yes\n", "{'k': True}", ""},
	{"k: YES\n", "{'k': True}", ""},
	{"k: yEs\n", "{'k': 'yEs'}", ""},
	{"k: no\n", "{'k': False}", ""},
	{"k: on\n", "{'k': True}", ""},
	{"k: Off\n", "{'k': False}", ""},
	{"k: y\n", "{'k': 'y'}", ""},
	{"k: Y\n", "{'k': 'Y'}", ""},
	{"k: n\n", "{'k': 'n'}", ""},
	{"k: N\n", "{'k': 'N'}", ""},
	{"k: true\n", "{'k': True}", ""},
	{"k: True\n", "{'k': True}", ""},
	{"k: TRUE\n", "{'k': True}", ""},
	{"k: tRue\n", "{'k': 'tRue'}", ""},
	{"k: false\n", "{'k': False}", ""},
	{"k: 1e3\n", "{'k': '1e3'}", ""},
	{"k: 1.0e+3\n", "{'k': 1000.0}", ""},
	{"k: 1.0e3\n", "{'k': '1.0e3'}", ""},
	{"k: 1.0E-3\n", "{'k': 0.001}", ""},
	{"k: 1.\n", "{'k': 1.0}", ""},
	{"k: 1._5\n", "{'k': 1.5}", ""},
	{"k: .5\n", "{'k': 0.5}", ""},
	{"k: ._5\n", "{'k': '._5'}", ""},
	{"k: -.inf\n", "{'k': -inf}", ""},
	{"k: +.inf\n", "{'k': inf}", ""},
	{"k: .Inf\n", "{'k': inf}", ""},
	{"k: .NaN\n", "{'k': nan}", ""},
	{"k: -.nan\n", "{'k': '-.nan'}", ""},
	{"k: 017\n", "{'k': 15}", ""},
	{"k: 0o17\n", "{'k': '0o17'}", ""},
	{"k: 08\n", "{'k': '08'}", ""},
	{"k: 09\n", "{'k': '09'}", ""},
	{"k: 0x1F\n", "{'k': 31}", ""},
	{"k: 0x_1f\n", "{'k': 31}", ""},
	{"k: -0x1F\n", "{'k': -31}", ""},
	{"k: 0b101\n", "{'k': 5}", ""},
	{"k: 0b\n", "{'k': '0b'}", ""},
	{"k: 1_000\n", "{'k': 1000}", ""},
	{"k: +1_000\n", "{'k': 1000}", ""},
	{"k: -0\n", "{'k': 0}", ""},
	{"k: +0\n", "{'k': 0}", ""},
	{"k: 0_\n", "{'k': 0}", ""},
	{"k: 1:30\n", "{'k': 90}", ""},
	{"k: 1:30.5\n", "{'k': 90.5}", ""},
	{"k: -1:30\n", "{'k': -90}", ""},
	{"k: 190:20:30\n", "{'k': 685230}", ""},
	{"k: 1:60\n", "{'k': '1:60'}", ""},
	{"k: 1:7\n", "{'k': 67}", ""},
	{"k: 01:30\n", "{'k': '01:30'}", ""},
	{"k: 0:30\n", "{'k': '0:30'}", ""},
	{"k: ~\n", "{'k': None}", ""},
	{"k: null\n", "{'k': None}", ""},
	{"k: Null\n", "{'k': None}", ""},
	{"k: NULL\n", "{'k': None}", ""},
	{"k: nUll\n", "{'k': 'nUll'}", ""},
	{"k:\n", "{'k': None}", ""},
	{"k: 2024-01-01\n", "{'k': datetime.date(2024, 1, 1)}", ""},
	{"k: 2024-1-1\n", "{'k': '2024-1-1'}", ""},
	{"k: 2001-12-14t21:59:43.10-05:00\n", "{'k': datetime.datetime(2001, 12, 14, 21, 59, 43, 100000, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))}", ""},
	{"k: 2001-12-14 21:59:43.10 -5\n", "{'k': datetime.datetime(2001, 12, 14, 21, 59, 43, 100000, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))}", ""},
	{"k: 2001-12-14 21:59:43.10\n", "{'k': datetime.datetime(2001, 12, 14, 21, 59, 43, 100000)}", ""},
	{"k: 2001-12-14T21:59:43Z\n", "{'k': datetime.datetime(2001, 12, 14, 21, 59, 43, tzinfo=datetime.timezone.utc)}", ""},
	{"k: 2001-12-14 21:59:43.1234567 +05:30\n", "{'k': datetime.datetime(2001, 12, 14, 21, 59, 43, 123456, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800)))}", ""},
	{"k: =\n", "", "ConstructorError"},
	{"k: <<\n", "", "ConstructorError"},
	{"k: 12345678901234567890\n", "{'k': 12345678901234567890}", ""},
	{"k: -12345678901234567890\n", "{'k': -12345678901234567890}", ""},
	{"k: 1e400\n", "{'k': '1e400'}", ""},
	{"k: 1.0e+400\n", "{'k': inf}", ""},
	{"k: 0.0\n", "{'k': 0.0}", ""},
	{"k: -0.0\n", "{'k': -0.0}", ""},
	{"k: 1_0.5_0\n", "{'k': 10.5}", ""},
	{"k: +12\n", "{'k': 12}", ""},
	{"k: +.5\n", "{'k': '+.5'}", ""},
	{"k: 2024-13-45\n", "", "ValueError"},
	{"k: 0b_\n", "", "ValueError"},
	{"k: 0x_\n", "", "ValueError"},
	{"k: 3.0e-400\n", "{'k': 0.0}", ""},
	{"k: 123abc\n", "{'k': '123abc'}", ""},
	{"a: !!str 123\nb: !!str yes\n", "{'a': '123', 'b': 'yes'}", ""},
	{"a: !!int '0x1F'\nb: !!int \"017\"\nc: !!int '1_000'\nd: !!int '1:30'\n", "{'a': 31, 'b': 15, 'c': 1000, 'd': 90}", ""},
	{"a: !!float '1e3'\nb: !!float '1'\nc: !!float .inf\n", "{'a': 1000.0, 'b': 1.0, 'c': inf}", ""},
	{"a: !!bool 'YeS'\nb: !!bool \"off\"\n", "{'a': True, 'b': False}", ""},
	{"a: !!null 'anything'\n", "{'a': None}", ""},
	{"a: !!timestamp '2024-1-1'\n", "{'a': datetime.date(2024, 1, 1)}", ""},
	{"a: !!binary aGVsbG8=\n", "{'a': b'hello'}", ""},
	{"a: 'yes'\nb: \"1:30\"\nc: |\n  017\nd: >\n  on\n", "{'a': 'yes', 'b': '1:30', 'c': '017\\n', 'd': 'on\\n'}", ""},
	{"base: &b {x: 1, y: 2}\nother: &o {y: 5, z: 6}\nm:\n  <<: *b\n  y: 3\n  w: 4\nn:\n  <<: [*b, *o]\n", "{'base': {'x': 1, 'y': 2}, 'other': {'y': 5, 'z': 6}, 'm': {'x': 1, 'y': 3, 'w': 4}, 'n': {'y': 2, 'z': 6, 'x': 1}}", ""},
	{"x: &x {a: 1}\ny: &y {b: 2, a: 5}\nm:\n  <<: [*x, *y]\n", "{'x': {'a': 1}, 'y': {'b': 2, 'a': 5}, 'm': {'b': 2, 'a': 1}}", ""},
	{"a: 1\nb: 2\na: 3\n", "{'a': 3, 'b': 2}", ""},
	{"=: 1\n", "{'=': 1}", ""},
	{"a: &l [1, 2]\nb: *l\n", "{'a': [1, 2], 'b': [1, 2]}", ""},
	{"top:\n  - {p: yes, q: no}\n  - [~, null, '']\n", "{'top': [{'p': True, 'q': False}, [None, None, '']]}", ""},
	{"", "None", ""},
	{"# only a comment\n", "None", ""},
	{"---\n", "None", ""},
	{"a: 6.02e+23\nb: 1_000.5\nc: -1.5e-10\n", "{'a': 6.02e+23, 'b': 1000.5, 'c': -1.5e-10}", ""},
	{"a: hello\n  world\n", "{'a': 'hello world'}", ""},
	{"- 1\n- 2\n", "[1, 2]", ""},
	{"1.5\n", "1.5", ""},
}

func TestUnmarshalOrderedMatchesPyYAML(t *testing.T) {
	for _, c := range pyCases {
		v, err := yamlx.UnmarshalOrdered("case.yaml", []byte(c.doc))
		if c.pyErr != "" {
			var ye *yamlx.Error
			if !errors.As(err, &ye) || ye.File != "case.yaml" || ye.Line != 1 {
				t.Errorf("%q: got %#v, %v; want an *yamlx.Error on case.yaml line 1 (Python: %s)", c.doc, v, err, c.pyErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.doc, err)
			continue
		}
		if got := pyrepr.Repr(v); got != c.repr {
			t.Errorf("%q:\n got %s\nwant %s", c.doc, got, c.repr)
		}
	}
}

func TestUnmarshalGivesPlainGoTypes(t *testing.T) {
	v, err := yamlx.Unmarshal("types.yaml", []byte("i: 017\nbig: 12345678901234567890\nf: 1.0e+3\ns: 1e3\nb: on\nn: ~\nl: [y, n]\nm: {a: 1}\nd: 2024-01-01\n"))
	if err != nil {
		t.Fatal(err)
	}
	big, _ := new(big.Int).SetString("12345678901234567890", 10)
	want := map[string]any{
		"i": int64(15), "big": big, "f": 1000.0, "s": "1e3", "b": true, "n": nil,
		"l": []any{"y", "n"}, "m": map[string]any{"a": int64(1)},
		"d": yamlx.Date{Year: 2024, Month: 1, Day: 1},
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %#v\nwant %#v", v, want)
	}
}

func TestAliasesShareOneValue(t *testing.T) {
	v, err := yamlx.UnmarshalOrdered("alias.yaml", []byte("a: &x {p: 1}\nb: *x\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(*yamlx.Map)
	a, _ := m.Get("a")
	b, _ := m.Get("b")
	if a.(*yamlx.Map) != b.(*yamlx.Map) {
		t.Error("an alias gave a copy; PyYAML gives the same object")
	}
	p := yamlx.Plain(m).(map[string]any)
	p["a"].(map[string]any)["p"] = int64(2)
	if p["b"].(map[string]any)["p"] != int64(2) {
		t.Error("Plain did not keep the alias shared")
	}
}

func TestTimestampsAsPythonDatetimes(t *testing.T) {
	cases := map[string]string{
		"2001-12-14t21:59:43.10-05:00":       "datetime.datetime(2001, 12, 14, 21, 59, 43, 100000, tzinfo=datetime.timezone(datetime.timedelta(days=-1, seconds=68400)))",
		"2001-12-14 21:59:43.10":             "datetime.datetime(2001, 12, 14, 21, 59, 43, 100000)",
		"2001-12-14T21:59:43Z":               "datetime.datetime(2001, 12, 14, 21, 59, 43, tzinfo=datetime.timezone.utc)",
		"2001-12-14 21:59:43.1234567 +05:30": "datetime.datetime(2001, 12, 14, 21, 59, 43, 123456, tzinfo=datetime.timezone(datetime.timedelta(seconds=19800)))",
		"2001-12-14 00:00:00":                "datetime.datetime(2001, 12, 14, 0, 0)",
		"2024-02-29":                         "datetime.date(2024, 2, 29)",
	}
	for text, want := range cases {
		v, err := yamlx.Unmarshal("ts.yaml", []byte("k: "+text))
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if got := pyrepr.Repr(v.(map[string]any)["k"]); got != want {
			t.Errorf("%s: got %s, want %s", text, got, want)
		}
	}
	if _, err := yamlx.Unmarshal("ts.yaml", []byte("k: 2023-02-29")); err == nil {
		t.Error("2023-02-29 read without error; Python's date() rejects it")
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		doc  string
		line int
	}{
		{"a: 1\n---\nb: 2\n", 2},   // a second document (ComposerError)
		{"a: 1\nm:\n  <<: 1\n", 3}, // merge of a scalar
		{"m:\n  <<: [1]\n", 2},     // merge of a list of scalars
		{"a: !!set {x}\n", 1},      // a set has no plain Go form
		{"a: 1\nb: !foo 1\n", 2},   // unknown tag
		{"a: b: c\n", 1},           // ScannerError
		{"a:\n  b: 1\n c: 2\n", 2}, // bad indentation: the library names the inner mapping's line (PyYAML: 3)
		{"x: 1\n1: a\n", 2},        // int key
		{"on: a\n", 1},             // bool key
		{"a: &a [*a]\n", 1},        // recursive alias
		{"a: 1\nb: *nope\n", 2},    // undefined alias
		{"a: !!int 12x\n", 1},      // bad explicit int
	}
	for _, c := range cases {
		_, err := yamlx.Unmarshal("dir/bad.yaml", []byte(c.doc))
		var ye *yamlx.Error
		if !errors.As(err, &ye) {
			t.Errorf("%q: got %v, want an *yamlx.Error", c.doc, err)
			continue
		}
		if ye.File != "dir/bad.yaml" || ye.Line != c.line {
			t.Errorf("%q: error %q names %s:%d, want dir/bad.yaml:%d", c.doc, err, ye.File, ye.Line, c.line)
		}
	}
	_, err := yamlx.Unmarshal("k.yaml", []byte("off: 1\n"))
	if !errors.Is(err, yamlx.ErrNonStringKey) {
		t.Errorf("a bool key gave %v, want ErrNonStringKey", err)
	}
}

func TestEmptyDocumentsAreNil(t *testing.T) {
	for _, doc := range []string{"", "# comment only\n", "---\n", "\n\n"} {
		v, err := yamlx.Unmarshal("e.yaml", []byte(doc))
		if err != nil || v != nil {
			t.Errorf("%q: got %#v, %v; want nil, nil", doc, v, err)
		}
	}
}

// TestFixtureFilesReadAsPythonReadsThem reads every YAML file of the
// ts_config_ocs Test fixture and the TestCsc schema, and compares with the
// values (and, through the repr, the key order) yaml.safe_load gives.
func TestFixtureFilesReadAsPythonReadsThem(t *testing.T) {
	dir := wirefixture.Shared(t, "ts_config_ocs", "Test")
	meta := "{'arbitrary_key': 'arbitrary metadata to ignore', 'another_key': 'more arbitrary metadata to ignore'}"
	want := map[string]string{
		"v1/_labels.yaml":     "{'all_fields': 'all_fields.yaml', 'some_fields': 'some_fields.yaml'}",
		"v1/all_fields.yaml":  "{'string0': 'an arbitrary string', 'bool0': False, 'int0': -47, 'float0': 1.234, 'intarr0': [0, 2, -3, -5, 4]}",
		"v1/some_fields.yaml": "{'string0': 'an arbitrary string', 'intarr0': [0, 2, -3, -5, 4]}",
		"v2/_init.yaml":       "{'metadata': " + meta + ", 'string0': 'default value for string0', 'bool0': True, 'int0': 5, 'float0': 3.14, 'intarr0': [-1, 1], 'multi_type': None}",
		"v2/_summit.yaml":     "{'string0': 'value from site=summit'}",
		"v2/_test.yaml":       "{'string0': 'value from site=test'}",
		"v2/all_fields.yaml":  "{'metadata': " + meta + ", 'string0': 'value from all_fields.yaml', 'bool0': False, 'int0': -47, 'float0': 1.234, 'intarr0': [0, 2, -3, -5, 4]}",
		"v2/empty.yaml":       "None",
		"v2/some_fields.yaml": "{'string0': 'value from some_fields.yaml', 'intarr0': [0, 2, -3, -5, 4]}",
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.yaml"))
	if len(files) != len(want) {
		t.Errorf("found %d YAML files, the test knows %d: %v", len(files), len(want), files)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := yamlx.UnmarshalOrdered(f, data)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if got := pyrepr.Repr(v); got != want[rel] {
			t.Errorf("%s:\n got %s\nwant %s", rel, got, want[rel])
		}
	}

	data, err := os.ReadFile(wirefixture.Shared(t, "test-csc-config-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := yamlx.UnmarshalOrdered("test-csc-config-schema.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	schema := "{'$schema': 'http://json-schema.org/draft-07/schema#', '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py', 'title': 'Test v2', 'description': 'Configuration for the TestCsc', 'type': 'object', 'properties': {'string0': {'type': 'string'}, 'bool0': {'type': 'boolean'}, 'int0': {'type': 'integer'}, 'float0': {'type': 'number'}, 'intarr0': {'type': 'array', 'items': {'type': 'integer'}}, 'multi_type': {'anyOf': [{'type': 'integer', 'minimum': 1}, {'type': 'string'}, {'type': 'null'}]}}, 'required': ['string0', 'bool0', 'int0', 'float0', 'intarr0', 'multi_type'], 'additionalProperties': False}"
	if got := pyrepr.Repr(v); got != schema {
		t.Errorf("schema:\n got %s\nwant %s", got, schema)
	}
}
