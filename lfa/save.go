package lfa

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/lsst-sal/salgo/topics"
)

// EventName is the generic event that announces a file saved to the
// Large File Annex.
const EventName = "largeFileObjectAvailable"

// Announcement is what Save writes in the largeFileObjectAvailable event
// besides url, byteSize and checkSum, which it measures. salobj CSCs fill
// url and generator; the other fields are for the producer to give.
type Announcement struct {
	// Generator is the generator field: the name of what made the file,
	// as given to MakeKey (salobj's fiber spectrograph writes
	// "fiberSpecBlue"). Required.
	Generator string
	// Version is the file format's version (x.y); 0 if none.
	Version float32
	// MimeType is the mimeType field and, unless WithContentType says
	// otherwise, the object's content type ("image/fits", "text/plain").
	MimeType string
	// ID is the id field: an identifier of the file for its consumers
	// (an observation ID, ...); "" if none.
	ID string
}

// Saved says where Save put a file and what it announced.
type Saved struct {
	// Key is the object's key.
	Key string
	// URL is the event's url: salobj's {endpoint}/{bucket}/{key}
	// (Bucket.URL).
	URL string
	// ByteSize is the object's size.
	ByteSize int64
	// CheckSum is the MD5 of the bytes uploaded, in hexadecimal (the
	// event's checkSum).
	CheckSum string
}

// ErrNotAnnounced matches the error of a Save whose file is in the store
// but whose largeFileObjectAvailable event could not be written.
var ErrNotAnnounced = errors.New("lfa: saved but not announced")

// Save uploads r to key in b and then, once the object is in the store,
// writes the largeFileObjectAvailable event with ev (the writer of that
// event of a CSC or Controller: csc.MustEvent(lfa.EventName)): url
// (b.URL(key)), generator, version, byteSize and checkSum (the MD5 of the
// bytes, computed while they stream), mimeType and id. byteSize is a SAL
// long (32 bits): a file of 2 GiB or more is announced with byteSize 0,
// as salobj CSCs leave it, and Saved.ByteSize holds its size. As salobj's CSCs
// do, it announces a file only once it landed: a failed upload writes no
// event and leaves no object. An upload that succeeded but whose event
// failed returns Saved with an error matching ErrNotAnnounced (the file
// is there; write the event again, or tell the operators).
//
// A CSC whose upload fails falls back as salobj's guide says: keep the
// data (on local disk), log it, and announce a file:// url if it must.
func Save(ctx context.Context, b *Bucket, ev *topics.Writer, key string, r io.Reader, a Announcement, opts ...UploadOption) (Saved, error) {
	if ev == nil {
		return Saved{}, fmt.Errorf("lfa: save %q: no %s writer", key, EventName)
	}
	if name := ev.Topic().Name(); name != EventName {
		return Saved{}, fmt.Errorf("lfa: save %q: the writer is of %s, not %s", key, name, EventName)
	}
	if a.Generator == "" {
		return Saved{}, fmt.Errorf("lfa: save %q: %w: the announcement has no generator", key, ErrBadName)
	}
	if a.MimeType != "" {
		opts = append([]UploadOption{WithContentType(a.MimeType)}, opts...)
	}
	sum := md5.New()
	n, err := b.Upload(ctx, key, io.TeeReader(r, sum), opts...)
	if err != nil {
		return Saved{}, err
	}
	s := Saved{Key: key, URL: b.URL(key), ByteSize: n, CheckSum: hex.EncodeToString(sum.Sum(nil))}
	var size int32 // SAL long: 0 ("not given", as salobj CSCs leave it) beyond its range
	if n <= math.MaxInt32 {
		size = int32(n)
	}
	_, err = ev.Write(ctx, map[string]any{
		"url": s.URL, "generator": a.Generator, "version": a.Version,
		"byteSize": size, "checkSum": s.CheckSum, "mimeType": a.MimeType, "id": a.ID,
	})
	if err != nil {
		return s, fmt.Errorf("%w: %s in bucket %q: %w", ErrNotAnnounced, key, b.Name(), err)
	}
	return s, nil
}
