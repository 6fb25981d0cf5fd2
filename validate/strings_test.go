package validate_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// TestCheckStringMatchesValidate: CheckString reports what Validate
// reports for the same string in a map record, byte for byte, bounded and
// unbounded, for both rules and both at once.
func TestCheckStringMatchesValidate(t *testing.T) {
	comp, err := xml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	top := comp.Topic("scalars")
	values := []string{"", "ok", strings.Repeat("a", 20), strings.Repeat("a", 21), strings.Repeat("é", 11),
		"\xff", "a\xc3", strings.Repeat("b", 30) + "\xff", strings.Repeat("\xfe", 100), strings.Repeat("x", 200)}
	for _, unbounded := range []bool{false, true} {
		var opts []validate.Option
		if unbounded {
			opts = append(opts, validate.Unbounded())
		}
		v := validate.Compile(top, opts...)
		for _, name := range []string{"string0", "private_identity"} {
			f := top.Field(name)
			for _, s := range values {
				rec := v.New()
				rec[name] = s
				want := v.Validate(rec)
				got := validate.CheckString(top.Component, top.SALName, name, s, f.MaxLen(), unbounded)
				if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
					t.Errorf("unbounded %v, %s = %q: CheckString\n%v\nValidate\n%v", unbounded, name, s, got, want)
					continue
				}
				if got == nil {
					continue
				}
				g, w := validate.FieldErrors(got), validate.FieldErrors(want)
				if !reflect.DeepEqual(g, w) {
					t.Errorf("unbounded %v, %s = %q: field errors %#v, want %#v", unbounded, name, s, g, w)
				}
				if len(g) == 1 && !errors.As(got, new(*validate.FieldError)) {
					t.Errorf("%q: %T is not a *FieldError", s, got)
				}
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		_ = validate.CheckString("Example", "scalars", "string0", "fine", 20, false)
	}); n != 0 {
		t.Errorf("checking a valid string allocates %v times", n)
	}
}
