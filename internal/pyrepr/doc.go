// Package pyrepr renders Go values the way Python's repr() and str() print
// them, so that texts salobj builds with {x!r} (ack results, log messages,
// jsonschema errors) come out character for character in Go.
//
// The value model is the one internal/yamlx produces: nil (None), bool,
// string, int64 and the other Go integers, *big.Int, float64, []any,
// map[string]any, []byte (bytes). A value with a PyRepr() string method
// (an ordered mapping, a date) renders itself.
//
// A Go map has no order; Repr prints map[string]any with its keys sorted.
// Python prints a dict in insertion order, so use an ordered mapping (a
// value with PyRepr) where the order must match.
package pyrepr
