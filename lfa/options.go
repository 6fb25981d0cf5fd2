package lfa

import (
	"log/slog"
)

// Defaults of Open's options.
const (
	// DefaultPartSize is the part size of multipart uploads (8 MiB,
	// boto3's multipart_chunksize): uploads up to it are one request.
	DefaultPartSize = 8 << 20
	// MinPartSize is S3's smallest part, 5 MiB.
	MinPartSize = 5 << 20
	// DefaultConcurrency is how many parts of one upload are in flight
	// at once. An upload holds at most PartSize × Concurrency bytes
	// (32 MiB by default), whatever the file's size.
	DefaultConcurrency = 4
	// MaxAttempts bounds the attempts of each request to the store (the
	// AWS SDK's standard retryer: transient network errors, throttling
	// and 5xx answers, with jittered exponential backoff).
	MaxAttempts = 5
)

// Option configures Open.
type Option func(*options)

type options struct {
	endpoint    string
	endpointSet bool
	profile     string
	create      bool
	logger      *slog.Logger
	partSize    int64
	concurrency int
}

// WithEndpoint sets the store's URL (http or https, e.g.
// "http://s3.example.org:9000"), in place of S3_ENDPOINT_URL. Empty: the
// process's in-process store, whatever S3_ENDPOINT_URL says. Stores other
// than AWS's (host not under amazonaws.com) are addressed path-style.
func WithEndpoint(url string) Option {
	return func(o *options) { o.endpoint, o.endpointSet = url, true }
}

// WithProfile selects a profile of the shared AWS config and credentials
// files (~/.aws/config, ~/.aws/credentials), as AWS_PROFILE does and
// salobj's AsyncS3Bucket(profile=...). Default: AWS_PROFILE, or the
// default profile. Ignored by the in-process store.
func WithProfile(name string) Option {
	return func(o *options) { o.profile = name }
}

// WithCreate creates the bucket if it does not exist (a no-op if it
// does), as salobj's AsyncS3Bucket(create=True): for tests and the
// in-process store. Default: the bucket is assumed to exist.
func WithCreate() Option {
	return func(o *options) { o.create = true }
}

// WithLogger sets the logger of the bucket's uploads and downloads
// (debug lines naming bucket, key and size; never credentials).
// Default: slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// WithPartSize sets the part size of multipart uploads, at least
// MinPartSize; default DefaultPartSize.
func WithPartSize(n int64) Option {
	return func(o *options) { o.partSize = n }
}

// WithConcurrency sets how many parts of one upload are in flight at
// once, at least 1; default DefaultConcurrency.
func WithConcurrency(n int) Option {
	return func(o *options) { o.concurrency = n }
}

// UploadOption configures one upload.
type UploadOption func(*uploadOptions)

type uploadOptions struct {
	contentType string
	size        int64
	progress    func(done, total int64)
}

// WithProgress calls f as the upload goes: done is the number of bytes
// the store has acknowledged (after each part of a multipart upload),
// total the size (WithSize, the file's size for UploadFile) or -1 if
// unknown. done never decreases, and the last call, once the object is
// complete, has done and total equal to its size. Calls do not overlap;
// f must not block.
func WithProgress(f func(done, total int64)) UploadOption {
	return func(o *uploadOptions) { o.progress = f }
}

// WithContentType sets the object's Content-Type (e.g. "image/fits",
// the event's mimeType). Default: the store's, binary/octet-stream.
func WithContentType(t string) UploadOption {
	return func(o *uploadOptions) { o.contentType = t }
}

// WithSize announces how many bytes the reader holds: the total passed
// to WithProgress, and a check (a reader holding another number fails
// the upload, and no object is written). Default: unknown.
func WithSize(n int64) UploadOption {
	return func(o *uploadOptions) { o.size = n }
}
