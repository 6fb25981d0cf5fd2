// Package jsonschema validates configuration values against a JSON Schema
// the way salobj's validators (Python jsonschema 4.x, Draft7Validator) do,
// and reports the error Python would report. It is the module's only
// importer of github.com/santhosh-tekuri/jsonschema/v6.
//
// Compile reads the schema as YAML through internal/yamlx, keeping the
// order of its keywords, and compiles it with santhosh-tekuri/jsonschema as
// Draft 7 whatever "$schema" says; that also checks it against the Draft 7
// metaschema (salobj's ConfigurableCsc does not: a bad schema fails there
// only at the first validation, here at Compile). "format" is not asserted.
//
// Validate returns the first error Python's jsonschema yields, as a
// *ValidationError whose Message is Python's text (e.g. "0 is not of type
// 'string'", "'float0' is a required property") and whose PyRepr is
// "<ValidationError: \"0 is not of type 'string'\">", the form
// ConfigurableCsc puts in its ack. Python walks the schema's keywords in
// the order they are written, properties in schema order and items in list
// order, and stops at the first error; this package makes the same walk over
// the ordered schema for every Draft 7 keyword, so the first error and its
// words match. The santhosh-tekuri validator is consulted as well: if it
// finds an error the walk does not (a construct the walk does not resolve,
// such as a $ref to another document), its error is returned with its own
// words.
//
// FillDefaults is salobj's DefaultingValidator (SAL scripts; a configurable
// CSC fills no defaults): it inserts "default" values, at every depth the
// validation reaches, before validating.
//
// Instance values are the ones internal/yamlx produces (nil, bool, string,
// int64, *big.Int, float64, []any, map[string]any or *yamlx.Map, and
// yamlx.Date, yamlx.Timestamp, []byte, which are of no JSON type); other Go
// integers, floats, slices and string-keyed maps are accepted too.
// A map[string]any has no order: where Python's text depends on the
// instance's key order (the repr of a dict, patternProperties), its keys are
// taken sorted; pass a *yamlx.Map to keep the written order.
package jsonschema
