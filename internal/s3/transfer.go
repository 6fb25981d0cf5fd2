package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"golang.org/x/sync/errgroup"
)

// abortTimeout bounds the AbortMultipartUpload of a failed upload, which
// runs even when the upload's context is done.
const abortTimeout = 30 * time.Second

// Upload describes one upload.
type Upload struct {
	// ContentType of the object; empty: the store's default
	// (binary/octet-stream).
	ContentType string
	// Size is the number of bytes the reader holds, or -1 if unknown.
	// When known, a reader that holds another number fails the upload.
	Size int64
	// Progress, if not nil, is called with the bytes the store has
	// acknowledged so far (after each part) and Size (-1 if unknown);
	// done never decreases, and the last call, once the object is
	// complete, has done and total equal to its size. Calls do not
	// overlap.
	Progress func(done, total int64)
}

// Upload streams r to bucket/key and returns the object's size. Up to
// PartSize bytes it is one PutObject; beyond, a multipart upload with at
// most Concurrency parts in flight, so it holds at most Concurrency
// buffers of PartSize bytes whatever the size. A failed multipart upload
// is aborted, so no partial object appears.
func (c *Client) Upload(ctx context.Context, bucket, key string, r io.Reader, up Upload) (int64, error) {
	if up.Size < -1 {
		return 0, c.fail("upload", bucket, key, fmt.Errorf("size %d: must be -1 (unknown) or more", up.Size))
	}
	first := c.partSize
	if up.Size >= 0 && up.Size+1 < first {
		first = up.Size + 1 // a small object of known size: a small buffer
	}
	buf := make([]byte, first)
	n, err := io.ReadFull(r, buf)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return c.putObject(ctx, bucket, key, bytes.NewReader(buf[:n]), int64(n), up)
	case err != nil:
		return 0, c.fail("upload", bucket, key, fmt.Errorf("read: %w", err))
	case int64(n) < c.partSize: // a known size, and the reader holds more
		return 0, c.fail("upload", bucket, key, fmt.Errorf("the reader holds more than the %d bytes announced", up.Size))
	}
	return c.multipart(ctx, bucket, key, r, buf, up)
}

// putObject uploads the n bytes of body in one request.
func (c *Client) putObject(ctx context.Context, bucket, key string, body io.Reader, n int64, up Upload) (int64, error) {
	if up.Size >= 0 && n != up.Size {
		return 0, c.fail("upload", bucket, key, fmt.Errorf("the reader held %d bytes, not the %d announced", n, up.Size))
	}
	in := &awss3.PutObjectInput{
		Bucket:        aws.String(bucket),
		Key:           aws.String(key),
		Body:          body,
		ContentLength: aws.Int64(n),
	}
	if up.ContentType != "" {
		in.ContentType = aws.String(up.ContentType)
	}
	if _, err := c.c.PutObject(ctx, in); err != nil {
		return 0, c.fail("upload", bucket, key, err)
	}
	if up.Progress != nil {
		up.Progress(n, n)
	}
	return n, nil
}

// mpu is one multipart upload in progress.
type mpu struct {
	c           *Client
	bucket, key string
	id          *string
	up          Upload

	mu    sync.Mutex // guards parts, done and the Progress calls
	parts []types.CompletedPart
	done  int64
}

func (c *Client) startMultipart(ctx context.Context, bucket, key string, up Upload) (*mpu, error) {
	in := &awss3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if up.ContentType != "" {
		in.ContentType = aws.String(up.ContentType)
	}
	created, err := c.c.CreateMultipartUpload(ctx, in)
	if err != nil {
		return nil, c.fail("upload", bucket, key, err)
	}
	return &mpu{c: c, bucket: bucket, key: key, id: created.UploadId, up: up}, nil
}

// part uploads one part (retried by the SDK, which rewinds body).
func (m *mpu) part(ctx context.Context, num int32, body io.ReadSeeker, n int64) error {
	out, err := m.c.c.UploadPart(ctx, &awss3.UploadPartInput{
		Bucket:        aws.String(m.bucket),
		Key:           aws.String(m.key),
		UploadId:      m.id,
		PartNumber:    aws.Int32(num),
		Body:          body,
		ContentLength: aws.Int64(n),
	})
	if err != nil {
		return fmt.Errorf("part %d: %w", num, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.parts = append(m.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
	m.done += n
	if m.up.Progress != nil {
		m.up.Progress(m.done, m.up.Size)
	}
	return nil
}

// finish completes the upload of total bytes, or aborts it if err is
// not nil or completing fails, so that no partial object remains.
func (m *mpu) finish(ctx context.Context, total int64, err error) (int64, error) {
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err == nil && m.up.Size >= 0 && total != m.up.Size {
		err = fmt.Errorf("the reader held %d bytes, not the %d announced", total, m.up.Size)
	}
	if err == nil {
		slices.SortFunc(m.parts, func(a, b types.CompletedPart) int { return int(*a.PartNumber - *b.PartNumber) })
		_, err = m.c.c.CompleteMultipartUpload(ctx, &awss3.CompleteMultipartUploadInput{
			Bucket:          aws.String(m.bucket),
			Key:             aws.String(m.key),
			UploadId:        m.id,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: m.parts},
		})
		if err == nil {
			if m.up.Progress != nil && m.up.Size < 0 {
				m.up.Progress(total, total) // the total, now known
			}
			return total, nil
		}
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), abortTimeout)
	defer cancel()
	if _, aerr := m.c.c.AbortMultipartUpload(actx, &awss3.AbortMultipartUploadInput{
		Bucket: aws.String(m.bucket), Key: aws.String(m.key), UploadId: m.id,
	}); aerr != nil {
		err = fmt.Errorf("%w (and aborting the multipart upload failed: %v)", err, aerr)
	}
	return 0, m.c.fail("upload", m.bucket, m.key, err)
}

// multipart uploads first (a full part) and the rest of r, reading each
// part into one of at most Concurrency buffers.
func (c *Client) multipart(ctx context.Context, bucket, key string, r io.Reader, first []byte, up Upload) (int64, error) {
	m, err := c.startMultipart(ctx, bucket, key, up)
	if err != nil {
		return 0, err
	}
	free := make(chan []byte, c.concurrency) // buffers back from finished parts
	allocated := 1
	g, gctx := errgroup.WithContext(ctx)
	send := func(num int32, data []byte) {
		g.Go(func() error {
			defer func() { free <- data[:cap(data)] }()
			return m.part(gctx, num, bytes.NewReader(data), int64(len(data)))
		})
	}

	total := int64(len(first))
	num := int32(1)
	send(num, first)
	var readErr error
	for gctx.Err() == nil {
		var buf []byte
		select {
		case buf = <-free:
		default:
			if allocated < c.concurrency {
				buf = make([]byte, c.partSize)
				allocated++
			} else {
				select {
				case buf = <-free:
				case <-gctx.Done():
				}
			}
		}
		if buf == nil {
			break // a part failed, or ctx is done
		}
		n, err := io.ReadFull(r, buf)
		total += int64(n)
		if n > 0 {
			if num == MaxParts {
				readErr = fmt.Errorf("more than %d parts of %d bytes: use a larger part size", MaxParts, c.partSize)
				break
			}
			num++
			send(num, buf[:n])
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			readErr = fmt.Errorf("read: %w", err)
			break
		}
	}
	if werr := g.Wait(); readErr == nil {
		readErr = werr
	}
	return m.finish(ctx, total, readErr)
}

// UploadAt uploads size bytes of ra (a file) to bucket/key, as Upload
// but with no buffers: each part is read from ra as it is sent, at most
// Concurrency at once. Parts grow beyond PartSize if the file needs more
// than MaxParts.
func (c *Client) UploadAt(ctx context.Context, bucket, key string, ra io.ReaderAt, size int64, up Upload) (int64, error) {
	up.Size = size
	if size <= c.partSize {
		return c.putObject(ctx, bucket, key, io.NewSectionReader(ra, 0, size), size, up)
	}
	partSize := c.partSize
	if (size+partSize-1)/partSize > MaxParts {
		partSize = (size + MaxParts - 1) / MaxParts
	}
	m, err := c.startMultipart(ctx, bucket, key, up)
	if err != nil {
		return 0, err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.concurrency)
	num := int32(0)
	for off := int64(0); off < size && gctx.Err() == nil; off += partSize {
		n := min(partSize, size-off)
		num++
		part := num
		g.Go(func() error { return m.part(gctx, part, io.NewSectionReader(ra, off, n), n) })
	}
	return m.finish(ctx, size, g.Wait())
}

// Download writes the object to w and returns the bytes written. It
// streams: memory does not grow with the object's size.
func (c *Client) Download(ctx context.Context, bucket, key string, w io.Writer) (int64, error) {
	out, err := c.c.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return 0, c.fail("download", bucket, key, err)
	}
	defer out.Body.Close()
	n, err := io.Copy(w, out.Body)
	if err != nil {
		return n, c.fail("download", bucket, key, fmt.Errorf("after %d bytes: %w", n, err))
	}
	if want := aws.ToInt64(out.ContentLength); out.ContentLength != nil && n != want {
		return n, c.fail("download", bucket, key, fmt.Errorf("got %d bytes of %d", n, want))
	}
	return n, nil
}
