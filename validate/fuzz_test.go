package validate_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// fuzzTopic has a scalar of every SAL type (string0 bounded to 20 bytes),
// an array of 3 of every non-string type (<stem>A), and two nullable fields.
func fuzzTopic() *xml.Topic {
	t := scalarsTopic()
	t.SALName = "fuzz"
	for _, a := range allTypes {
		if a.typ != xml.String {
			t.Fields = append(t.Fields, &xml.Field{Name: a.stem + "A", Type: a.typ, Count: 3})
		}
	}
	t.Fields = append(t.Fields,
		&xml.Field{Name: "nf", Type: xml.Float, Count: 1, Nullable: true},
		&xml.Field{Name: "nd", Type: xml.Double, Count: 2, Nullable: true},
	)
	return t
}

var rules = []error{
	validate.ErrUnknownField, validate.ErrMissingField, validate.ErrType, validate.ErrRange,
	validate.ErrArrayLength, validate.ErrStringLength, validate.ErrNull, validate.ErrEncoding,
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`null`,
		`{"boolean0": true, "byte0": 255, "short0": -32768, "int0": 2147483647, "long0": -2147483648,
		  "longLong0": 9007199254740993, "unsignedShort0": 65535, "unsignedInt0": 4294967295,
		  "float0": 3.4028234663852886e38, "double0": 1.7976931348623157e308, "string0": "01234567890123456789"}`,
		`{"byte0": 256, "unsignedInt0": -1, "int0": 3.5, "float0": 1e39, "string0": "012345678901234567890"}`,
		`{"byteA": [0, 255, 1], "floatA": [0.1, -0.1, 1e-45], "doubleA": [1, 2, 3], "booleanA": [true, false, true]}`,
		`{"byteA": [0, 256], "intA": [1, 2, 3, 4], "floatA": "x", "booleanA": [1, 0, 1]}`,
		`{"nf": null, "nd": null}`,
		`{"nf": 1.5, "nd": [1, 2]}`,
		`{"nf": 1e300, "nd": [1]}`,
		`{"extra": {"a": [1, 2]}, "boolean0": null}`,
		`{"longLong0": 9223372036854775807, "longLong0x": 1}`,
		`{"longLong0": 9223372036854775808, "unsignedInt0": 4294967296.0}`,
		`{"string0": "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9", "private_identity": "\udc00"}`,
		`{"int0": -0.0, "short0": 1e2, "byte0": 2.5e1}`,
		`{"intA": [[1], {"a": 1}, null]}`,
	} {
		f.Add([]byte(s))
	}
	top := fuzzTopic()
	v := validate.Compile(top)
	strict := validate.Compile(top, validate.Strict())
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, useNumber := range []bool{false, true} {
			for _, val := range []*validate.Validator{v, strict} {
				dec := json.NewDecoder(bytes.NewReader(data))
				if useNumber {
					dec.UseNumber()
				}
				var rec map[string]any
				if dec.Decode(&rec) != nil || rec == nil {
					return
				}
				fuzzOne(t, top, val, rec)
			}
		}
	})
}

func fuzzOne(t *testing.T, top *xml.Topic, v *validate.Validator, rec map[string]any) {
	before := copyRecord(rec)
	r := v.Check(rec)
	_ = r.String()
	if !sameRecord(rec, before) {
		t.Fatal("Check changed the record")
	}
	err := v.Validate(rec)
	if err != nil {
		fes := validate.FieldErrors(err)
		if len(fes) == 0 {
			t.Fatalf("error without FieldError: %v", err)
		}
		for _, fe := range fes {
			n := 0
			for _, r := range rules {
				if errors.Is(fe, r) {
					n++
				}
			}
			if n != 1 || fe.Component != "Example" || fe.Topic != "fuzz" || !strings.Contains(fe.Error(), ": field ") {
				t.Fatalf("bad FieldError %+v", fe)
			}
		}
		if !sameRecord(rec, before) {
			t.Fatalf("failed Validate changed the record: %v", err)
		}
		return
	}
	checkCanonical(t, top, rec)
	if r := v.Check(rec); !r.OK() {
		t.Fatalf("Check after Validate: %v", r)
	}
	after := copyRecord(rec)
	if n := testing.AllocsPerRun(1, func() {
		if err := v.Validate(rec); err != nil {
			t.Fatalf("second Validate: %v", err)
		}
	}); n != 0 {
		t.Fatalf("second Validate allocated %v times", n)
	}
	if !sameRecord(rec, after) {
		t.Fatal("second Validate changed the record")
	}
	if err := v.Normalize(rec); err != nil || !sameRecord(rec, after) {
		t.Fatalf("Normalize of a valid record: %v", err)
	}
}
