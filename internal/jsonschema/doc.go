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
// words match. Where the walk meets a construct it does not resolve (such
// as a $ref to another document), the santhosh-tekuri validator decides,
// and its error is returned with its own words.
//
// Shared values: a mapping or list held in several places (a YAML alias,
// which internal/yamlx gives as one Go value, as PyYAML gives one object)
// is validated once per schema position, not once per use, so the work is
// linear in the distinct values even when the expanded tree is huge (the
// "billion laughs"). Messages are written only for the error returned. An
// error found in a shared value is reported with the path of the use where
// Python finds it first.
//
// FillDefaults is salobj's DefaultingValidator (SAL scripts; a configurable
// CSC fills no defaults): it inserts "default" values, at every depth the
// validation reaches, before validating. It works on a copy that keeps the
// input's sharing and fills that copy in place, as Python fills its dicts
// in place: a mapping aliased under two properties whose schemas have
// different defaults gets both sets of defaults, seen by both uses (as in
// Python: {'a': {'p': 1, 'q': 2}, 'b': {'p': 1, 'q': 2}} for "a: &x {}" and
// "b: *x"). One difference is kept: a default is copied where it is
// inserted, where Python inserts the schema's own object (and so may fill
// defaults into the schema itself).
//
// Instance values are the ones internal/yamlx produces (nil, bool, string,
// int64, *big.Int, float64, []any, map[string]any or *yamlx.Map, and
// yamlx.Date, yamlx.Timestamp, []byte, which are of no JSON type); other Go
// integers, floats, slices and string-keyed maps are accepted too.
// A map[string]any has no order: where Python's text depends on the
// instance's key order (the repr of a dict, patternProperties), its keys are
// taken sorted; pass a *yamlx.Map to keep the written order.
package jsonschema
