package jsonschema_test

import (
	"fmt"

	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/pyrepr"
)

func Example() {
	s, err := jsonschema.Compile("schema.yaml", []byte(`
title: Demo v1
type: object
properties:
  name: {type: string}
  rate: {type: number, minimum: 0}
required: [name, rate]
additionalProperties: false
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Validate(map[string]any{"name": "x", "rate": 1.5}))
	fmt.Println(pyrepr.Repr(s.Validate(map[string]any{"name": 0, "rate": -1})))
	fmt.Println(pyrepr.Repr(s.Validate(map[string]any{"name": "x"})))
	// Output:
	// <nil>
	// <ValidationError: "0 is not of type 'string'">
	// <ValidationError: "'rate' is a required property">
}
