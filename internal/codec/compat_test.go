package codec_test

import (
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/codec"
)

func rec(fields string) string {
	return `{"type": "record", "name": "t", "namespace": "lsst.sal.X", "fields": [` + fields + `]}`
}

func TestCompare_Hazards(t *testing.T) {
	base := rec(`{"name": "a", "type": "int", "default": 0}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0]}`)
	for _, tc := range []struct {
		name, new         string
		backward, forward bool
		reason            string
	}{
		{"identical", base, true, true, ""},
		{"field added with default", rec(`{"name": "a", "type": "int", "default": 0}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0]}, {"name": "c", "type": "double", "default": 0.0}`), true, true, ""},
		{"type changed", rec(`{"name": "a", "type": "string", "default": ""}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0]}`), false, false, ""},
		{"promotion int to long", rec(`{"name": "a", "type": "long", "default": 0}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0]}`), true, false, ""},
		{"array length changed", rec(`{"name": "a", "type": "int", "default": 0}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0, 0.0]}`), false, false, "changed length from 3 to 4"},
		{"field added without default", rec(`{"name": "a", "type": "int", "default": 0}, {"name": "b", "type": {"type": "array", "items": "float"}, "default": [0.0, 0.0, 0.0]}, {"name": "c", "type": "double"}`), false, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := codec.Compare(tc.new, base)
			if err != nil {
				t.Fatal(err)
			}
			if (c.Backward == nil) != tc.backward || (c.Forward == nil) != tc.forward {
				t.Errorf("backward=%v forward=%v", c.Backward, c.Forward)
			}
			if tc.reason != "" && (c.Backward == nil || !strings.Contains(c.Backward.Error(), tc.reason)) {
				t.Errorf("reason %v", c.Backward)
			}
		})
	}
	// A field removed without a default: old readers cannot fill it.
	noDef := rec(`{"name": "a", "type": "int"}`)
	c, err := codec.Compare(rec(``), noDef)
	if err != nil {
		t.Fatal(err)
	}
	if c.Backward != nil || c.Forward == nil {
		t.Errorf("removed without default: backward=%v forward=%v", c.Backward, c.Forward)
	}
}
