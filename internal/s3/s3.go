// Package s3 is the SDK's S3 client for the Large File Annex (package
// lfa): a client from an endpoint URL and the standard AWS credential
// chain, streamed multipart uploads with bounded memory and a progress
// callback, downloads, HEAD (exists, size) and bucket creation, with the
// AWS SDK's standard retryer. It is the only package of the module that
// imports aws-sdk-go-v2.
//
// Every error names the operation, the endpoint, the bucket and the key;
// no error text or log line carries credentials.
package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Defaults of Config.
const (
	// DefaultPartSize is the size of a multipart upload's parts, and of
	// each buffer an upload holds: boto3's multipart_chunksize.
	DefaultPartSize = 8 << 20
	// MinPartSize is S3's smallest part (all but the last).
	MinPartSize = 5 << 20
	// DefaultConcurrency is how many parts of one upload are in flight
	// (and buffered) at once.
	DefaultConcurrency = 4
	// DefaultMaxAttempts bounds the attempts of each request (the SDK's
	// standard retryer: transient errors, throttling and 5xx, with
	// jittered exponential backoff).
	DefaultMaxAttempts = 5
	// MaxParts is S3's largest number of parts of one upload.
	MaxParts = 10000
	// DefaultRegion is the signing region when none is configured
	// (AWS_REGION, the profile): S3-compatible stores accept any.
	DefaultRegion = "us-east-1"
)

// ErrNotFound: the key or the bucket does not exist (HTTP 404).
var ErrNotFound = errors.New("not found")

// Config configures New.
type Config struct {
	// Endpoint is the store's URL (http or https, no user info).
	// Required. Path-style addressing unless the host is AWS's.
	Endpoint string
	// Profile selects a profile of the shared config and credentials
	// files; empty: AWS_PROFILE, or the default profile.
	Profile string
	// Static, when true, signs with fixed placeholder credentials and
	// reads no environment, profile or file: for the embedded store,
	// which checks no signature.
	Static bool
	// PartSize of multipart uploads; 0: DefaultPartSize. At least
	// MinPartSize.
	PartSize int64
	// Concurrency of an upload's parts; 0: DefaultConcurrency. An upload
	// holds at most Concurrency buffers of PartSize bytes.
	Concurrency int
	// MaxAttempts of each request; 0: DefaultMaxAttempts.
	MaxAttempts int
	// MaxBackoff bounds the wait between attempts; 0: the SDK's (20 s).
	MaxBackoff time.Duration
}

// Client is an S3 client bound to one endpoint. It is safe for
// concurrent use.
type Client struct {
	c           *awss3.Client
	closeIdle   func()
	endpoint    string
	partSize    int64
	concurrency int
}

// New makes a client of cfg.Endpoint. It resolves the credentials
// lazily (at the first request), as the AWS SDK does.
func New(ctx context.Context, cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.Endpoint)
	switch {
	case err != nil:
		return nil, fmt.Errorf("s3: endpoint URL %q: %w", redact(cfg.Endpoint), err)
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("s3: endpoint URL %q: scheme must be http or https", redact(cfg.Endpoint))
	case u.Host == "":
		return nil, fmt.Errorf("s3: endpoint URL %q: no host", redact(cfg.Endpoint))
	case u.User != nil:
		return nil, fmt.Errorf("s3: endpoint URL %q: must not carry user info (credentials come from the AWS settings)", redact(cfg.Endpoint))
	}
	c := &Client{endpoint: strings.TrimSuffix(u.String(), "/"), partSize: cfg.PartSize, concurrency: cfg.Concurrency}
	if c.partSize == 0 {
		c.partSize = DefaultPartSize
	}
	if c.partSize < MinPartSize {
		return nil, fmt.Errorf("s3: part size %d: less than S3's minimum %d", c.partSize, MinPartSize)
	}
	if c.concurrency == 0 {
		c.concurrency = DefaultConcurrency
	}
	if c.concurrency < 0 {
		return nil, fmt.Errorf("s3: concurrency %d: must be positive", c.concurrency)
	}
	attempts := cfg.MaxAttempts
	if attempts == 0 {
		attempts = DefaultMaxAttempts
	}
	// The SDK's buildable client, so that the loader can apply
	// AWS_CA_BUNDLE; frozen below into a client whose idle connections
	// Close closes.
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
		tr.MaxIdleConnsPerHost = c.concurrency + 2
	})
	retryer := func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = attempts
			if cfg.MaxBackoff > 0 {
				o.MaxBackoff = cfg.MaxBackoff
				o.Backoff = retry.NewExponentialJitterBackoff(cfg.MaxBackoff)
			}
		})
	}
	onAWS := strings.HasSuffix(u.Hostname(), ".amazonaws.com")

	var awsCfg aws.Config
	if cfg.Static {
		awsCfg = aws.Config{
			Region:      DefaultRegion,
			Credentials: credentials.NewStaticCredentialsProvider("salgo-embedded", "salgo-embedded", ""),
			Retryer:     retryer,
			HTTPClient:  httpClient,
		}
	} else {
		opts := []func(*config.LoadOptions) error{
			config.WithRetryer(retryer),
			config.WithHTTPClient(httpClient),
			config.WithDefaultRegion(DefaultRegion),
		}
		if cfg.Profile != "" {
			opts = append(opts, config.WithSharedConfigProfile(cfg.Profile))
		}
		if !onAWS {
			// No instance metadata service behind a store of our own.
			opts = append(opts, config.WithEC2IMDSClientEnableState(imds.ClientDisabled))
		}
		awsCfg, err = config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("s3: AWS configuration for endpoint %s (profile %q): %w", c.endpoint, cfg.Profile, err)
		}
	}
	// The transport as the loader left it (AWS_CA_BUNDLE applied), in a
	// client of our own so that Close can close its idle connections
	// (the SDK's frozen client wraps the transport in one that cannot),
	// following no redirect, as the SDK's does not follow 301/302.
	tr := httpClient.GetTransport()
	if bc, ok := awsCfg.HTTPClient.(*awshttp.BuildableClient); ok {
		tr = bc.GetTransport()
	}
	c.closeIdle = tr.CloseIdleConnections
	awsCfg.HTTPClient = &http.Client{
		Transport:     tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.c = awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		o.BaseEndpoint = aws.String(c.endpoint)
		o.UsePathStyle = !onAWS
		if !onAWS {
			// S3-compatible stores (Ceph, MinIO, moto, gofakes3) do not
			// all take the flexible checksums AWS's S3 asks for by
			// default since 2025.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	return c, nil
}

// Endpoint returns the endpoint URL, without a trailing slash.
func (c *Client) Endpoint() string { return c.endpoint }

// Close closes the client's idle connections. The client must not be
// used after.
func (c *Client) Close() { c.closeIdle() }

// Error is the error of an operation on the store: it names the
// operation, the endpoint, the bucket and the key (empty for bucket
// operations). errors.Is(err, ErrNotFound) tells a missing key or bucket.
type Error struct {
	Op       string // "upload", "download", "size", "create bucket"
	Endpoint string
	Bucket   string
	Key      string
	NotFound bool
	Err      error
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "s3: %s: bucket %q", e.Op, e.Bucket)
	if e.Key != "" {
		fmt.Fprintf(&b, ", key %q", e.Key)
	}
	fmt.Fprintf(&b, ", endpoint %s: ", e.Endpoint)
	if e.NotFound {
		b.WriteString("not found: ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the cause, and ErrNotFound for a missing key or bucket.
func (e *Error) Unwrap() []error {
	if e.NotFound {
		return []error{ErrNotFound, e.Err}
	}
	return []error{e.Err}
}

func (c *Client) fail(op, bucket, key string, err error) error {
	return &Error{Op: op, Endpoint: c.endpoint, Bucket: bucket, Key: key, NotFound: isNotFound(err), Err: err}
}

// isNotFound: a 404, or S3's codes for a missing key or bucket.
func isNotFound(err error) bool {
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound {
		return true
	}
	var nsk *types.NoSuchKey
	var nsb *types.NoSuchBucket
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nsb) || errors.As(err, &nf) {
		return true
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NoSuchBucket", "NotFound":
			return true
		}
	}
	return false
}

// redact drops the user info of a URL for an error text.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	if u.User != nil {
		u.User = url.User("REDACTED")
	}
	return u.String()
}

// CreateBucket creates the bucket; a no-op if it exists and is ours.
func (c *Client) CreateBucket(ctx context.Context, bucket string) error {
	if _, err := c.c.HeadBucket(ctx, &awss3.HeadBucketInput{Bucket: aws.String(bucket)}); err == nil {
		return nil
	}
	_, err := c.c.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String(bucket)})
	if err == nil {
		return nil
	}
	var owned *types.BucketAlreadyOwnedByYou
	if errors.As(err, &owned) {
		return nil
	}
	var exists *types.BucketAlreadyExists
	if errors.As(err, &exists) {
		// Created meanwhile by another client; ours if we can HEAD it.
		if _, herr := c.c.HeadBucket(ctx, &awss3.HeadBucketInput{Bucket: aws.String(bucket)}); herr == nil {
			return nil
		}
	}
	return &Error{Op: "create bucket", Endpoint: c.endpoint, Bucket: bucket, Err: err}
}

// Size returns the size of the object (HEAD).
func (c *Client) Size(ctx context.Context, bucket, key string) (int64, error) {
	out, err := c.c.HeadObject(ctx, &awss3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return 0, c.fail("size", bucket, key, err)
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Object is one object of a listing.
type Object struct {
	Key          string
	Size         int64
	LastModified time.Time
}

// List calls fn for each object of bucket whose key starts with prefix,
// in key order, a page of at most 1000 at a time (ListObjectsV2), until
// fn returns false or the listing ends.
func (c *Client) List(ctx context.Context, bucket, prefix string, fn func(Object) bool) error {
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)}
	p := awss3.NewListObjectsV2Paginator(c.c, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return c.fail("list", bucket, prefix+"*", err)
		}
		for _, o := range page.Contents {
			if !fn(Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), LastModified: aws.ToTime(o.LastModified)}) {
				return nil
			}
		}
	}
	return nil
}
