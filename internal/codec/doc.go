// Package codec encodes and decodes SAL topic records as Avro binary, and
// reads and writes the Confluent framing around them. It is the only
// package of the SDK that imports github.com/hamba/avro/v2, so that
// library can be replaced without touching anything else.
//
// # Records
//
// A record is a map[string]any keyed by field name, holding each value in
// the canonical Go type of its SAL type (the validate package converts
// user input to these):
//
//	boolean        bool       Avro boolean
//	byte           uint8      Avro int
//	short          int16      Avro int
//	int, long      int32      Avro int
//	long long      int64      Avro long
//	unsigned short uint16     Avro int
//	unsigned int   uint32     Avro long
//	float          float32    Avro float
//	double         float64    Avro double
//	string         string     Avro string
//
// Arrays (Count > 1) are slices of these. Nullable fields (the ["null", T]
// unions of the camera .avsc topics) hold nil or the canonical value.
//
// # Codec
//
// New compiles a Codec from an xml.Topic once; it uses no reflection and no
// hamba at run time. Append writes the Avro body exactly as fastavro (the
// reference's writer) does: fields in order, zigzag varints, little-endian
// floats, arrays as one block followed by 0. Every NaN, whatever its sign
// and payload, is written as the canonical quiet NaN (0x7fc00000 as a
// float, 0x7ff8000000000000 as a double), the bits of Python's
// float("nan") that ts_salobj writes; Go's math.NaN() is
// 0x7ff8000000000001. Decode and DecodeInto read the body back, keeping
// the bits of every float as they are on the wire; DecodeInto reuses the
// caller's map and, where lengths match, its slices. Size buffers with
// SizeHint.
//
// Decoding validates everything: truncated or garbage input gives a
// *DecodeError (wrapping ErrTruncated, ErrInvalid or ErrTrailing), never a
// panic, and no allocation exceeds what the input length justifies. Bytes
// left after the record are an error. Arrays in any block layout are
// accepted (several blocks, negative counts with byte sizes).
//
// # Issues
//
// A value that decodes but does not fit the reader's canonical type, such
// as an Avro int 300 in a SAL byte field written by another writer, is
// stored with Go's conversion (uint8(300) == 44) and counted, not dropped:
// DecodeIssues returns the Issues of one record, and Stats the running
// totals of a Codec or Decoder. A resolving Decoder also counts writer nulls
// read into non-nullable fields (stored as the reader default).
//
// # Schema resolution
//
// NewResolving builds a Decoder for data written with another version of a
// topic's schema (for instance the schema registered under the id in a
// message's header). It follows the Avro resolution rules: fields matched
// by name, reader defaults for missing fields, skipping of unknown writer
// fields of any type, numeric promotions, union resolution. The caller
// caches decoders per schema id; this package caches nothing globally.
//
// # Framing
//
// AppendHeader and SplitHeader write and split the 5-byte Confluent header
// (Magic, then the big-endian schema id) that the reference's
// confluent_kafka serializers put before the Avro body.
//
// # Reference path
//
// Generic wraps hamba/avro's generic map codec for tests and benchmarks,
// configured to write arrays as one block so its bytes equal Append's.
// CheckSchema checks that hamba parses a schema text.
package codec
