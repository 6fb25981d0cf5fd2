package pyrepr_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/lsst-sal/salgo/internal/pyrepr"
)

// The expected texts were printed by CPython 3.11.7 (repr of each value).
func TestStringMatchesPythonRepr(t *testing.T) {
	cases := []struct{ in, want string }{
		{"executing the fault command", `'executing the fault command'`},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' and "`, `'both \' and "'`},
		{"a\nb", `'a\nb'`},
		{"tab\there", `'tab\there'`},
		{`back\slash`, `'back\\slash'`},
		{"cr\r", `'cr\r'`},
		{"\x00\x07\x1b\x7f", `'\x00\x07\x1b\x7f'`},
		{"é–ü", "'é–ü'"},
		{"\u200b", `'\u200b'`},
		{"\u00a0", `'\xa0'`},
		{"\u2028", `'\u2028'`},
		{"\ue000", `'\ue000'`},
		{"\U0001F600", "'\U0001F600'"},
		{"\U000e0001", `'\U000e0001'`},
		{"\u0378", `'\u0378'`},
		{"", "''"},
	}
	for _, c := range cases {
		if got := pyrepr.String(c.in); got != c.want {
			t.Errorf("String(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestFloatMatchesPythonRepr(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {3.14, "3.14"},
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123456789012345678, "1.2345678901234568e+17"},
		{0.0001, "0.0001"}, {0.00001, "1e-05"}, {1.5e-7, "1.5e-07"}, {1.234, "1.234"},
		{1e300, "1e+300"}, {2.5e-310, "2.5e-310"}, {100, "100.0"}, {1.0 / 3, "0.3333333333333333"},
		{-2, "-2.0"}, {1e22, "1e+22"}, {12345.678, "12345.678"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
	}
	for _, c := range cases {
		if got := pyrepr.Float(c.in); got != c.want {
			t.Errorf("Float(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestBytesMatchesPythonRepr(t *testing.T) {
	cases := []struct {
		in   []byte
		want string
	}{
		{[]byte("fatal: invalid object name 'nosuchref'.\n"), `b"fatal: invalid object name 'nosuchref'.\n"`},
		{[]byte("abc"), `b'abc'`},
		{[]byte{0, 0xff, '\t'}, `b'\x00\xff\t'`},
		{[]byte(`it's "x"`), `b'it\'s "x"'`},
		{[]byte(`\`), `b'\\'`},
	}
	for _, c := range cases {
		if got := pyrepr.Bytes(c.in); got != c.want {
			t.Errorf("Bytes(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

type ordered struct{}

func (ordered) PyRepr() string { return "{'z': 1, 'a': 2}" }

func TestReprOfValues(t *testing.T) {
	huge, _ := new(big.Int).SetString("-12345678901234567890", 10)
	cases := []struct {
		in   any
		want string
	}{
		{nil, "None"}, {true, "True"}, {false, "False"}, {int64(-47), "-47"}, {7, "7"},
		{huge, "-12345678901234567890"}, {1.5, "1.5"}, {"x", "'x'"},
		{[]any{int64(0), "a", nil, 2.0}, "[0, 'a', None, 2.0]"},
		{map[string]any{"b": []any{}, "a": map[string]any{}}, "{'a': {}, 'b': []}"},
		{[]string{"_init.yaml", "_test.yaml"}, "['_init.yaml', '_test.yaml']"},
		{[]int64{1, 2}, "[1, 2]"},
		{ordered{}, "{'z': 1, 'a': 2}"},
		{[]any{ordered{}}, "[{'z': 1, 'a': 2}]"},
	}
	for _, c := range cases {
		if got := pyrepr.Repr(c.in); got != c.want {
			t.Errorf("Repr(%#v) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := pyrepr.Str("plain"); got != "plain" {
		t.Errorf("Str of a string = %q, want it unquoted", got)
	}
	if got := pyrepr.Str(map[string]any{"a": int64(3)}); got != "{'a': 3}" {
		t.Errorf("Str of a dict = %q", got)
	}
}
