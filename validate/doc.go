// Package validate checks and normalises SAL records — map[string]any
// values keyed by field name — against one topic of the xml definition
// model, without reflection.
//
// # Canonical Go types
//
// Every SAL field type has exactly one canonical Go type, used everywhere in
// the SDK: records handed to a writer are converted to it, and records
// delivered by a reader hold it.
//
//	SAL type        Avro     Go scalar   Go array (Count > 1)
//	boolean         boolean  bool        []bool
//	byte            int      uint8       []uint8
//	short           int      int16       []int16
//	int             int      int32       []int32
//	long            int      int32       []int32   (SAL long is 32 bits)
//	long long       long     int64       []int64
//	unsigned short  int      uint16      []uint16
//	unsigned int    long     uint32      []uint32
//	float           float    float32     []float32
//	double          double   float64     []float64
//	string          string   string      (strings are never arrays)
//
// A Nullable field (a ["null", T] union of a camera .avsc topic) holds nil or
// the canonical value. [Canonical] returns the Go type name of a SAL type.
//
// # Validators
//
// [Compile] turns one [xml.Topic] into a [Validator] once; [For] does the
// same through a concurrency-safe cache so that callers compile each topic
// only once. A Validator is immutable and safe for concurrent use; it keeps
// what it needs from the topic at Compile time, so later changes to the
// topic are not seen.
//
// The Validator offers one operation per side of the codec:
//
//   - [Validator.Validate], on the write side, enforces every rule (unknown
//     fields, missing fields, types, integer ranges, array lengths, string
//     bounds and UTF-8, nil) and converts convenient values, such as an int
//     for a byte field or a float64 or []any decoded by encoding/json, to the
//     canonical type in place. On a record that is already canonical and
//     complete it makes no change and does not allocate.
//   - [Validator.Check], on the read side, never rejects a record: like the
//     Python reference (ts_salobj), readers accept what arrives. It counts, in
//     a [Report], the violations the reference does not enforce.
//   - [Validator.Normalize] converts the representation of another decoder
//     (hamba/avro's generic maps: int, int64, []any, union maps) to the
//     canonical types, without the schema rules.
//   - [Validator.New] returns a fresh record with every field at its default.
//
// # Errors
//
// Validate reports every bad field and array element of a record in one
// pass: the error is an [errors.Join] of [*FieldError] values, one per
// problem; [FieldErrors] lists them. Each FieldError wraps one of the rule
// sentinels ([ErrUnknownField], [ErrMissingField], [ErrType], [ErrRange],
// [ErrArrayLength], [ErrStringLength], [ErrNull], [ErrEncoding]), so a caller
// tests the rule with [errors.Is] and reads the details with [errors.As]:
//
//	validate: Example.command_setScalars: field byte0: value 300 out of range for byte (0..255)
//
// When Validate or Normalize returns an error, the record is left unchanged.
//
// # Cost
//
// Validate and Check first make one pass of map lookups, in field order,
// with one type assertion per field; only a record that fails it (a
// missing, unknown, mistyped or out-of-bounds value) takes the slow path
// that converts values and builds errors. A complete canonical record of
// MTM1M3 forceActuatorData (23 fields, 811 floats) costs one map lookup per
// field and no allocation. Converting a slice allocates the new canonical
// slice.
package validate
