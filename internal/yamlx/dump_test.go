package yamlx_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/yamlx"
)

// TestSafeDump_Recorded: for every recorded document, SafeDump of what
// UnmarshalOrdered read is the text PyYAML's yaml.safe_dump wrote for
// what yaml.safe_load read (dump_recorded_test.go): key order, quoting,
// escapes, folding at 80 columns, block and empty collections, anchors.
func TestSafeDump_Recorded(t *testing.T) {
	for i, c := range recordedDumps {
		v, err := yamlx.UnmarshalOrdered("case", []byte(c.in))
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := yamlx.SafeDump(v)
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		if got != c.out {
			t.Errorf("case %d: SafeDump of\n%s\ngave\n%s\nPyYAML %s wrote\n%s", i, c.in, got, recordedPyYAML, c.out)
		}
	}
}

// TestSafeDump_PlainValues: Go values that are not from the YAML reader
// (map[string]any, int, big.Int) dump as the Python values they stand
// for; a shared map[string]any gets an anchor as a shared dict does.
func TestSafeDump_PlainValues(t *testing.T) {
	shared := map[string]any{"x": 1}
	got, err := yamlx.SafeDump(map[string]any{
		"b": []any{1, int64(2), big.NewInt(3), 1.5, nil, true, "s"},
		"a": shared, "c": shared,
	})
	want := "a: &id001\n  x: 1\nb:\n- 1\n- 2\n- 3\n- 1.5\n- null\n- true\n- s\nc: *id001\n"
	if err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
	if got, err := yamlx.SafeDump(nil); err != nil || got != "null\n...\n" {
		t.Errorf("None: %q, %v", got, err)
	}
}

// TestSafeDump_Refused: values safe_dump would write with tags Go does
// not carry (dates, binary) or that have no YAML form are errors naming
// the type.
func TestSafeDump_Refused(t *testing.T) {
	for _, v := range []any{yamlx.Date{Year: 2024, Month: 1, Day: 1}, []byte("x"), struct{}{}} {
		_, err := yamlx.SafeDump(map[string]any{"k": v})
		if err == nil || !strings.Contains(err.Error(), "cannot dump") {
			t.Errorf("%T: %v, want a cannot-dump error", v, err)
		}
	}
	if _, err := yamlx.SafeDump(map[string]any{"k": errors.New("x")}); err == nil {
		t.Error("an error value: no error")
	}
}
