package codec

import (
	"encoding/binary"
	"errors"
)

// Magic is the first byte of a Confluent-framed value: the wire format
// version, always 0.
const Magic byte = 0

// HeaderLen is the length of the Confluent header: the magic byte and the
// 4-byte big-endian schema id.
const HeaderLen = 5

// Framing errors returned by SplitHeader; match them with errors.Is.
var (
	// ErrTooShort reports a value shorter than the 5-byte header.
	ErrTooShort = errors.New("codec: value shorter than the 5-byte Confluent header")
	// ErrBadMagic reports a value whose first byte is not Magic.
	ErrBadMagic = errors.New("codec: value does not start with the Confluent magic byte 0")
)

// AppendHeader appends the Confluent header for schema id to dst: Magic
// followed by id as 4 big-endian bytes.
func AppendHeader(dst []byte, id int32) []byte {
	return append(dst, Magic, byte(uint32(id)>>24), byte(uint32(id)>>16), byte(uint32(id)>>8), byte(uint32(id)))
}

// SplitHeader splits a Confluent-framed value into its schema id and its
// Avro body. body aliases b. The error is ErrTooShort or ErrBadMagic.
func SplitHeader(b []byte) (id int32, body []byte, err error) {
	if len(b) < HeaderLen {
		return 0, nil, ErrTooShort
	}
	if b[0] != Magic {
		return 0, nil, ErrBadMagic
	}
	return int32(binary.BigEndian.Uint32(b[1:5])), b[HeaderLen:], nil
}
