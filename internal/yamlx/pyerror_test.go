package yamlx_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/lsst-sal/salgo/internal/yamlx"
)

// pyErrorUnmapped are the recorded inputs PyErrorText does not map: it
// must say so rather than give another text.
var pyErrorUnmapped = map[string]bool{
	"a: &x 1\n&y":              true,
	"key: value\n\"other\": [": true,
}

// TestPyErrorText: for bad YAML, PyErrorText gives str() of the error
// PyYAML 6.0.3 raises, byte for byte (testdata/pyerrors.json, written by
// testdata/record_pyerrors.py).
func TestPyErrorText(t *testing.T) {
	b, err := os.ReadFile("testdata/pyerrors.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Input, Error string }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := yamlx.UnmarshalOrdered("config", []byte(c.Input))
		if err == nil {
			t.Errorf("%q: no error", c.Input)
			continue
		}
		got, ok := yamlx.PyErrorText(c.Input, err)
		switch {
		case pyErrorUnmapped[c.Input]:
			if ok {
				t.Errorf("%q: mapped to\n%s\nwant not mapped", c.Input, got)
			}
		case !ok:
			t.Errorf("%q (%v): not mapped; want\n%s", c.Input, err, c.Error)
		case got != c.Error:
			t.Errorf("%q:\n got %q\nwant %q", c.Input, got, c.Error)
		}
	}
	if _, ok := yamlx.PyErrorText("a: 1", os.ErrNotExist); ok {
		t.Error("an error that is not the YAML reader's was mapped")
	}
}
