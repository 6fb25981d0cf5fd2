package validate_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// TestUnbounded: with Unbounded, strings longer than their IDL_Size pass
// Validate and Check, as ts_salobj sends and reads them; every other rule
// still holds (UTF-8 among them); without it the bound is enforced.
func TestUnbounded(t *testing.T) {
	c, err := xml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	tp := c.Command("setScalars")
	long := strings.Repeat("a", 21)
	bounded, unbounded := validate.For(tp), validate.For(tp, validate.Unbounded())
	if err := bounded.Validate(map[string]any{"string0": long}); !errors.Is(err, validate.ErrStringLength) {
		t.Errorf("bounded: %v, want ErrStringLength", err)
	}
	if err := unbounded.Validate(map[string]any{"string0": long}); err != nil {
		t.Errorf("unbounded: %v", err)
	}
	if err := unbounded.Validate(map[string]any{"string0": "\xff"}); !errors.Is(err, validate.ErrEncoding) {
		t.Errorf("unbounded, not UTF-8: %v, want ErrEncoding", err)
	}
	rec := bounded.New()
	rec["string0"] = long
	if rep := bounded.Check(rec); rep.StringLength != 1 {
		t.Errorf("bounded Check: %s", rep)
	}
	if rep := unbounded.Check(rec); !rep.OK() {
		t.Errorf("unbounded Check: %s", rep)
	}
}
