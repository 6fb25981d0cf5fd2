package validate_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

func Example() {
	topic := &xml.Topic{
		Component: "Example",
		SALName:   "command_setScalars",
		Kind:      xml.Command,
		Fields: []*xml.Field{
			{Name: "byte0", Type: xml.Byte, Count: 1},
			{Name: "float0", Type: xml.Float, Count: 1},
			{Name: "int0", Type: xml.Int, Count: 3},
			{Name: "string0", Type: xml.String, Count: 1, Size: 8},
		},
	}
	v := validate.For(topic) // compiled once, then cached

	// A record decoded from JSON: float64 numbers, []any arrays.
	var rec map[string]any
	_ = json.Unmarshal([]byte(`{"byte0": 200, "float0": 0.5, "int0": [1, 2, 3]}`), &rec)
	if err := v.Validate(rec); err != nil {
		fmt.Println(err)
	}
	fmt.Printf("%T %T %T %q\n", rec["byte0"], rec["float0"], rec["int0"], rec["string0"])

	// Every problem is reported at once.
	rec["byte0"] = 300
	rec["int0"] = []int32{1, 2}
	rec["colour"] = "blue"
	err := v.Validate(rec)
	fmt.Println(err)
	fmt.Println(errors.Is(err, validate.ErrRange), len(validate.FieldErrors(err)))
	// Output:
	// uint8 float32 []int32 ""
	// validate: Example.command_setScalars: field byte0: value 300 out of range for byte (0..255)
	// validate: Example.command_setScalars: field int0: array length 2, want 3
	// validate: Example.command_setScalars: field colour: unknown field (value "blue" (string))
	// true 3
}
