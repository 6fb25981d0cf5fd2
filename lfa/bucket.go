package lfa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lsst-sal/salgo/internal/s3"
)

// EnvEndpoint names the environment variable of the store's URL, as
// salobj reads it. Unset or empty: the in-process store.
const EnvEndpoint = "S3_ENDPOINT_URL"

// ErrNotFound: the key, or the bucket, does not exist. Errors of Size,
// Download and Upload match it (errors.Is).
var ErrNotFound = errors.New("lfa: not found")

// notFound is an error of the S3 client that matches ErrNotFound.
type notFound struct{ error }

func (e notFound) Is(target error) bool { return target == ErrNotFound }
func (e notFound) Unwrap() error        { return e.error }

// public makes an error of the S3 client match this package's sentinels.
func public(err error) error {
	if err != nil && errors.Is(err, s3.ErrNotFound) {
		return notFound{err}
	}
	return err
}

// ErrClosed: the Bucket was closed.
var ErrClosed = errors.New("lfa: bucket closed")

// Bucket is an S3 bucket of the Large File Annex, as salobj's
// AsyncS3Bucket: uploads (streamed, multipart beyond the part size, with
// a progress callback), downloads, Exists and Size. Every error names
// the endpoint, the bucket and the key, never credentials. A Bucket is
// safe for concurrent use; Close it when done.
type Bucket struct {
	name     string
	c        *s3.Client
	log      *slog.Logger
	embedded bool

	mu     sync.RWMutex // guards closed against Close during a call
	closed bool
}

// Open returns the bucket named name on the store of S3_ENDPOINT_URL
// (or WithEndpoint), with the standard AWS credentials: the
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables, AWS_PROFILE or
// WithProfile, the shared config and credentials files. With no endpoint
// it uses the process's in-process store (started on first use, shared
// by every Bucket of the process, stopped by Close), which needs nothing
// installed and accepts any credentials; create its buckets WithCreate.
//
// Open makes no request unless WithCreate is given: a missing bucket
// shows at the first call (ErrNotFound).
func Open(ctx context.Context, name string, opts ...Option) (*Bucket, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if name == "" {
		return nil, errors.New("lfa: bucket name is empty")
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	endpoint := o.endpoint
	if !o.endpointSet {
		endpoint = os.Getenv(EnvEndpoint)
	}
	// 0: s3's defaults, which are this package's (TestDefaults_AreS3s).
	cfg := s3.Config{Endpoint: endpoint, Profile: o.profile, PartSize: o.partSize, Concurrency: o.concurrency}
	if endpoint == "" {
		url, err := embeddedStore()
		if err != nil {
			return nil, fmt.Errorf("lfa: bucket %q: %w", name, err)
		}
		cfg.Endpoint, cfg.Static = url, true
	}
	c, err := s3.New(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("lfa: bucket %q: %w", name, err)
	}
	b := &Bucket{name: name, c: c, log: o.logger, embedded: cfg.Static}
	if o.create {
		if err := c.CreateBucket(ctx, name); err != nil {
			c.Close()
			return nil, err
		}
	}
	return b, nil
}

// Name returns the bucket's name.
func (b *Bucket) Name() string { return b.name }

// Endpoint returns the store's URL (the in-process store's loopback URL
// when no endpoint was set), without a trailing slash.
func (b *Bucket) Endpoint() string { return b.c.Endpoint() }

// Embedded reports whether the bucket is on the process's in-process
// store.
func (b *Bucket) Embedded() bool { return b.embedded }

// URL returns the URL salobj's AsyncS3Bucket.upload returns for key,
// "{endpoint}/{bucket}/{key}" (the url of a largeFileObjectAvailable
// event).
func (b *Bucket) URL(key string) string { return b.c.Endpoint() + "/" + b.name + "/" + key }

// Key is URL's inverse: the key of the object of this bucket that url
// names (a largeFileObjectAvailable event's url), and whether url names
// one.
func (b *Bucket) Key(url string) (key string, ok bool) {
	key, ok = strings.CutPrefix(url, b.c.Endpoint()+"/"+b.name+"/")
	return key, ok && key != ""
}

// Upload streams r to key and returns the object's size. Up to the part
// size (DefaultPartSize) it is one request; beyond, a multipart upload
// that holds at most part size × concurrency bytes whatever the size,
// and that is aborted if it fails, so no partial object appears. Each
// request is retried on transient errors (MaxAttempts).
func (b *Bucket) Upload(ctx context.Context, key string, r io.Reader, opts ...UploadOption) (int64, error) {
	o := uploadOptions{size: -1}
	for _, opt := range opts {
		opt(&o)
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.mu.RUnlock()
	n, err := b.c.Upload(ctx, b.name, key, r, s3.Upload{ContentType: o.contentType, Size: o.size, Progress: o.progress})
	err = public(err)
	if err != nil {
		return 0, err
	}
	b.log.Debug("lfa: uploaded", "bucket", b.name, "key", key, "bytes", n, "endpoint", b.c.Endpoint())
	return n, nil
}

// UploadFile uploads the file at path to key, as Upload, with the
// file's size as the progress callback's total. A regular file is read
// part by part where each part is sent (io.ReaderAt), so the upload holds
// no buffers of the part size; other files (pipes) are streamed as
// Upload streams a reader.
func (b *Bucket) UploadFile(ctx context.Context, key, path string, opts ...UploadOption) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("lfa: upload %s to bucket %q, key %q: %w", path, b.name, key, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("lfa: upload %s to bucket %q, key %q: %w", path, b.name, key, err)
	}
	if !st.Mode().IsRegular() {
		return b.Upload(ctx, key, f, opts...)
	}
	o := uploadOptions{size: -1}
	for _, opt := range opts {
		opt(&o)
	}
	if o.size >= 0 && o.size != st.Size() {
		return 0, fmt.Errorf("lfa: upload %s to bucket %q, key %q: the file holds %d bytes, not the %d announced", path, b.name, key, st.Size(), o.size)
	}
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.mu.RUnlock()
	n, err := b.c.UploadAt(ctx, b.name, key, f, st.Size(), s3.Upload{ContentType: o.contentType, Progress: o.progress})
	err = public(err)
	if err != nil {
		return 0, err
	}
	b.log.Debug("lfa: uploaded", "bucket", b.name, "key", key, "file", path, "bytes", n, "endpoint", b.c.Endpoint())
	return n, nil
}

// Download writes the object at key to w and returns the bytes written;
// it streams (memory does not grow with the object). A missing key or
// bucket is ErrNotFound.
func (b *Bucket) Download(ctx context.Context, key string, w io.Writer) (int64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.mu.RUnlock()
	n, err := b.c.Download(ctx, b.name, key, w)
	err = public(err)
	if err == nil {
		b.log.Debug("lfa: downloaded", "bucket", b.name, "key", key, "bytes", n, "endpoint", b.c.Endpoint())
	}
	return n, err
}

// Exists reports whether key exists (HEAD): false for a missing key or
// bucket (404), an error for anything else (no access, no store).
func (b *Bucket) Exists(ctx context.Context, key string) (bool, error) {
	_, err := b.Size(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Size returns the size in bytes of the object at key (HEAD). A missing
// key or bucket is ErrNotFound.
func (b *Bucket) Size(ctx context.Context, key string) (int64, error) {
	if err := b.enter(); err != nil {
		return 0, err
	}
	defer b.mu.RUnlock()
	n, err := b.c.Size(ctx, b.name, key)
	return n, public(err)
}

// Object is one object of a bucket, as Objects lists it.
type Object struct {
	// Key is the object's key.
	Key string
	// Size is its size in bytes.
	Size int64
	// LastModified is when the store last wrote it.
	LastModified time.Time
}

// Objects lists the objects whose keys start with prefix, in key order
// (all of them for ""), asking the store for a page of at most 1000 at a
// time as the loop goes on; stop the loop to stop listing (the loop must
// not Close the Bucket, which waits for it). A failure ends
// the sequence with it (a missing bucket is ErrNotFound). A Component's
// files are under "Name[:index]/", a day's under
// "Name[:index]/generator/yyyy/mm/dd/" (MakeKey).
func (b *Bucket) Objects(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		if err := b.enter(); err != nil {
			yield(Object{}, err)
			return
		}
		defer b.mu.RUnlock()
		stopped := false
		err := b.c.List(ctx, b.name, prefix, func(o s3.Object) bool {
			if !yield(Object{Key: o.Key, Size: o.Size, LastModified: o.LastModified}, nil) {
				stopped = true
				return false
			}
			return true
		})
		if err != nil && !stopped {
			yield(Object{}, public(err))
		}
	}
}

// Close waits for the calls in progress to return (cancel their
// contexts to end them sooner) and closes the bucket's connections;
// calls after it return ErrClosed. It is safe to call twice. The process's in-process store stays
// up for other Buckets: lfa.Close stops it.
func (b *Bucket) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	b.c.Close()
	return nil
}

// enter read-locks b for a call; the caller RUnlocks.
func (b *Bucket) enter() error {
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return fmt.Errorf("%w: %q at %s", ErrClosed, b.name, b.c.Endpoint())
	}
	return nil
}
