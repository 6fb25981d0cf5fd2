package main

// Decompression of Kafka record batches: gzip from the standard library,
// and small decoders of our own for snappy (raw and xerial-framed, as
// franz-go and the Java client write it) and lz4 (the frame format).
// zstd is not implemented.

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

func decompress(codec int, b []byte) ([]byte, error) {
	switch codec {
	case 0:
		return b, nil
	case 1:
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("gzip batch: %w", err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("gzip batch: %w", err)
		}
		return out, nil
	case 2:
		out, err := unsnappy(b)
		if err != nil {
			return nil, fmt.Errorf("snappy batch: %w", err)
		}
		return out, nil
	case 3:
		out, err := unlz4Frame(b)
		if err != nil {
			return nil, fmt.Errorf("lz4 batch: %w", err)
		}
		return out, nil
	case 4:
		return nil, errors.New("zstd-compressed batch: this tool's minimal Kafka client does not decode zstd")
	}
	return nil, fmt.Errorf("unknown compression codec %d", codec)
}

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// unsnappy decodes a snappy block, or xerial framing (a 16-byte header,
// then chunks of a 4-byte big-endian length and a snappy block).
func unsnappy(b []byte) ([]byte, error) {
	if !bytes.HasPrefix(b, xerialMagic) {
		return snappyBlock(nil, b)
	}
	if len(b) < 16 {
		return nil, io.ErrUnexpectedEOF
	}
	b = b[16:]
	var out []byte
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, io.ErrUnexpectedEOF
		}
		n := int(binary.BigEndian.Uint32(b))
		if n > len(b)-4 {
			return nil, io.ErrUnexpectedEOF
		}
		var err error
		if out, err = snappyBlock(out, b[4:4+n]); err != nil {
			return nil, err
		}
		b = b[4+n:]
	}
	return out, nil
}

// snappyBlock appends the decoding of one snappy block to dst.
func snappyBlock(dst, src []byte) ([]byte, error) {
	ulen, n := binary.Uvarint(src)
	if n <= 0 || ulen > 1<<30 {
		return nil, errors.New("bad length")
	}
	src = src[n:]
	start := len(dst)
	dst = append(dst, make([]byte, 0, ulen)...)
	for len(src) > 0 {
		tag := src[0]
		src = src[1:]
		var length, offset int
		switch tag & 3 {
		case 0: // literal
			length = int(tag>>2) + 1
			if length > 60 {
				k := length - 60 // bytes of length that follow
				if len(src) < k {
					return nil, io.ErrUnexpectedEOF
				}
				l := 0
				for i := k - 1; i >= 0; i-- {
					l = l<<8 | int(src[i])
				}
				length = l + 1
				src = src[k:]
			}
			if length > len(src) {
				return nil, io.ErrUnexpectedEOF
			}
			dst = append(dst, src[:length]...)
			src = src[length:]
			continue
		case 1:
			if len(src) < 1 {
				return nil, io.ErrUnexpectedEOF
			}
			length = 4 + int(tag>>2&7)
			offset = int(tag&0xe0)<<3 | int(src[0])
			src = src[1:]
		case 2:
			if len(src) < 2 {
				return nil, io.ErrUnexpectedEOF
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint16(src))
			src = src[2:]
		case 3:
			if len(src) < 4 {
				return nil, io.ErrUnexpectedEOF
			}
			length = 1 + int(tag>>2)
			offset = int(binary.LittleEndian.Uint32(src))
			src = src[4:]
		}
		if offset <= 0 || offset > len(dst)-start {
			return nil, errors.New("bad copy offset")
		}
		for i := 0; i < length; i++ { // byte by byte: copies may overlap
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	if len(dst)-start != int(ulen) {
		return nil, fmt.Errorf("decoded %d bytes, want %d", len(dst)-start, ulen)
	}
	return dst, nil
}

// unlz4Frame decodes the LZ4 frame format (magic 0x184D2204).
func unlz4Frame(b []byte) ([]byte, error) {
	if len(b) < 7 || binary.LittleEndian.Uint32(b) != 0x184D2204 {
		return nil, errors.New("not an LZ4 frame")
	}
	flg := b[4]
	hdr := 4 + 2 + 1 // magic, FLG, BD, header checksum
	if flg&0x08 != 0 {
		hdr += 8 // content size
	}
	if flg&0x01 != 0 {
		hdr += 4 // dictionary id
	}
	if len(b) < hdr {
		return nil, io.ErrUnexpectedEOF
	}
	b = b[hdr:]
	blockSum := flg&0x10 != 0
	var out []byte
	for {
		if len(b) < 4 {
			return nil, io.ErrUnexpectedEOF
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if n == 0 {
			return out, nil // end mark (a content checksum may follow)
		}
		raw := n&0x80000000 != 0
		n &^= 0x80000000
		if int(n) > len(b) {
			return nil, io.ErrUnexpectedEOF
		}
		if raw {
			out = append(out, b[:n]...)
		} else {
			var err error
			// Blocks may refer back into earlier blocks (linked blocks):
			// decode into the one output buffer.
			if out, err = lz4Block(out, b[:n]); err != nil {
				return nil, err
			}
		}
		b = b[n:]
		if blockSum {
			if len(b) < 4 {
				return nil, io.ErrUnexpectedEOF
			}
			b = b[4:]
		}
	}
}

// lz4Block appends the decoding of one LZ4 block to dst; matches may
// reach back into what dst already holds.
func lz4Block(dst, src []byte) ([]byte, error) {
	for len(src) > 0 {
		token := src[0]
		src = src[1:]
		lit := int(token >> 4)
		if lit == 15 {
			for {
				if len(src) == 0 {
					return nil, io.ErrUnexpectedEOF
				}
				c := src[0]
				src = src[1:]
				lit += int(c)
				if c != 255 {
					break
				}
			}
		}
		if lit > len(src) {
			return nil, io.ErrUnexpectedEOF
		}
		dst = append(dst, src[:lit]...)
		src = src[lit:]
		if len(src) == 0 {
			return dst, nil // the last sequence has literals only
		}
		if len(src) < 2 {
			return nil, io.ErrUnexpectedEOF
		}
		offset := int(binary.LittleEndian.Uint16(src))
		src = src[2:]
		ml := int(token & 15)
		if ml == 15 {
			for {
				if len(src) == 0 {
					return nil, io.ErrUnexpectedEOF
				}
				c := src[0]
				src = src[1:]
				ml += int(c)
				if c != 255 {
					break
				}
			}
		}
		ml += 4
		if offset == 0 || offset > len(dst) {
			return nil, errors.New("bad match offset")
		}
		for i := 0; i < ml; i++ {
			dst = append(dst, dst[len(dst)-offset])
		}
	}
	return dst, nil
}
