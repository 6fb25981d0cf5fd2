package lfa_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/internal/embedded/s3store"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/internal/s3child"
	"github.com/lsst-sal/salgo/lfa"
)

// TestMain fails the package's tests if any goroutine outlives them; the
// binary run again by startStoreProcess is the store instead.
func TestMain(m *testing.M) {
	s3child.Serve()
	leaktest.VerifyTestMain(m)
}

// startStoreProcess starts an in-memory store in a process of its own,
// so that what the store allocates is not counted in this process's
// MemStats, and returns its URL. It stops with the test.
func startStoreProcess(t *testing.T) string {
	t.Helper()
	p, err := s3child.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Stop(); err != nil {
			t.Errorf("store process: %v", err)
		}
	})
	return p.URL
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openEmbedded opens a new bucket on the in-process store (created),
// closed and the store stopped with the test.
func openEmbedded(t *testing.T, name string, opts ...lfa.Option) *lfa.Bucket {
	t.Helper()
	t.Cleanup(func() { _ = lfa.Close() })
	b, err := lfa.Open(testCtx(t), name, append([]lfa.Option{lfa.WithEndpoint(""), lfa.WithCreate()}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// pattern is a reader of n deterministic, incompressible-looking bytes
// that allocates nothing.
type pattern struct {
	n, off int64
	x      uint64
}

func newPattern(n int64) *pattern { return &pattern{n: n, x: 0x9e3779b97f4a7c15} }

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	if rest := p.n - p.off; int64(len(b)) > rest {
		b = b[:rest]
	}
	for i := range b {
		p.x ^= p.x << 13
		p.x ^= p.x >> 7
		p.x ^= p.x << 17
		b[i] = byte(p.x)
	}
	p.off += int64(len(b))
	return len(b), nil
}

func sum(t *testing.T, r io.Reader) [32]byte {
	t.Helper()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		t.Fatal(err)
	}
	return [32]byte(h.Sum(nil))
}

// roundTrip uploads size bytes with a progress callback, checks the
// progress, Exists and Size, downloads them and compares checksums.
func roundTrip(t *testing.T, b *lfa.Bucket, key string, size int64) {
	t.Helper()
	ctx := testCtx(t)
	var calls [][2]int64
	n, err := b.Upload(ctx, key, newPattern(size),
		lfa.WithContentType("application/octet-stream"),
		lfa.WithProgress(func(done, total int64) { calls = append(calls, [2]int64{done, total}) }))
	if err != nil {
		t.Fatal(err)
	}
	if n != size {
		t.Fatalf("Upload = %d bytes, want %d", n, size)
	}
	if len(calls) == 0 {
		t.Fatal("progress: never called")
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] {
			t.Fatalf("progress: done went back from %d to %d: %v", calls[i-1][0], calls[i][0], calls)
		}
	}
	if last := calls[len(calls)-1]; last != [2]int64{size, size} {
		t.Fatalf("progress: last call (done, total) = %v, want (%d, %d); all: %v", last, size, size, calls)
	}

	ok, err := b.Exists(ctx, key)
	if err != nil || !ok {
		t.Fatalf("Exists(%q) = %v, %v; want true", key, ok, err)
	}
	got, err := b.Size(ctx, key)
	if err != nil || got != size {
		t.Fatalf("Size(%q) = %d, %v; want %d", key, got, err, size)
	}
	h := sha256.New()
	dn, err := b.Download(ctx, key, h)
	if err != nil {
		t.Fatal(err)
	}
	if dn != size {
		t.Fatalf("Download = %d bytes, want %d", dn, size)
	}
	if want := sum(t, newPattern(size)); [32]byte(h.Sum(nil)) != want {
		t.Fatalf("downloaded bytes differ from the uploaded ones (sha256)")
	}
}

func TestBucket_RoundTrip(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test")
	if !b.Embedded() || !strings.HasPrefix(b.Endpoint(), "http://127.0.0.1:") {
		t.Fatalf("Embedded() = %v, Endpoint() = %q: want the in-process store", b.Embedded(), b.Endpoint())
	}
	if b.Name() != "rubinobs-lfa-test" {
		t.Fatalf("Name() = %q", b.Name())
	}
	t.Run("small", func(t *testing.T) { roundTrip(t, b, "Test:1/gen/2026/12/05/small.dat", 1000) })
	t.Run("empty", func(t *testing.T) { roundTrip(t, b, "Test:1/gen/2026/12/05/empty.dat", 0) })
	t.Run("multipart", func(t *testing.T) {
		roundTrip(t, b, "Test:1/gen/2026/12/05/multi.dat", 2*lfa.DefaultPartSize+12345)
	})
	if got, want := b.URL("a/b.dat"), b.Endpoint()+"/rubinobs-lfa-test/a/b.dat"; got != want {
		t.Fatalf("URL = %q, want %q", got, want)
	}
}

func TestBucket_ProgressWithSize(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test", lfa.WithPartSize(lfa.MinPartSize), lfa.WithConcurrency(3))
	size := int64(3*lfa.MinPartSize + 7)
	var totals []int64
	var dones []int64
	_, err := b.Upload(testCtx(t), "k", newPattern(size), lfa.WithSize(size),
		lfa.WithProgress(func(done, total int64) { dones, totals = append(dones, done), append(totals, total) }))
	if err != nil {
		t.Fatal(err)
	}
	if len(dones) != 4 {
		t.Fatalf("progress calls: %v, want one per part (4)", dones)
	}
	for i, tot := range totals {
		if tot != size {
			t.Fatalf("progress call %d: total %d, want %d", i, tot, size)
		}
		if i > 0 && dones[i] <= dones[i-1] {
			t.Fatalf("progress: done not increasing: %v", dones)
		}
	}
	if dones[len(dones)-1] != size {
		t.Fatalf("progress: last done %d, want %d", dones[len(dones)-1], size)
	}
}

func TestBucket_WrongSizeWritesNothing(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test", lfa.WithPartSize(lfa.MinPartSize))
	ctx := testCtx(t)
	for _, c := range []struct {
		key        string
		size, real int64
	}{
		{"short-small", 100, 99},
		{"long-small", 100, 101},
		{"short-multi", 2*lfa.MinPartSize + 1, 2 * lfa.MinPartSize},
		{"long-multi", 2 * lfa.MinPartSize, 2*lfa.MinPartSize + 1},
	} {
		_, err := b.Upload(ctx, c.key, newPattern(c.real), lfa.WithSize(c.size))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Fatalf("%s: Upload of %d bytes announced as %d: err = %v, want an error naming the key", c.key, c.real, c.size, err)
		}
		if ok, err := b.Exists(ctx, c.key); ok || err != nil {
			t.Fatalf("%s: Exists after a failed upload = %v, %v; want false", c.key, ok, err)
		}
	}
}

func TestBucket_ExistsSizeMissing(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test")
	ctx := testCtx(t)
	ok, err := b.Exists(ctx, "no/such/key")
	if err != nil || ok {
		t.Fatalf("Exists(missing) = %v, %v; want false, nil", ok, err)
	}
	_, err = b.Size(ctx, "no/such/key")
	if !errors.Is(err, lfa.ErrNotFound) {
		t.Fatalf("Size(missing) error = %v, want ErrNotFound", err)
	}
	for _, want := range []string{"no/such/key", "rubinobs-lfa-test", b.Endpoint()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Size(missing) error %q does not name %q", err, want)
		}
	}
	_, err = b.Download(ctx, "no/such/key", io.Discard)
	if !errors.Is(err, lfa.ErrNotFound) {
		t.Fatalf("Download(missing) error = %v, want ErrNotFound", err)
	}

	// A missing bucket: Exists is false.
	setFakeCredentials(t, "AKIDEXISTS", "exists-secret")
	nb, err := lfa.Open(ctx, "no-such-bucket", lfa.WithEndpoint(b.Endpoint()))
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	if ok, err := nb.Exists(ctx, "k"); ok || err != nil {
		t.Fatalf("Exists in a missing bucket = %v, %v; want false, nil", ok, err)
	}
}

// TestBucket_SharedStore: two Buckets of one process see the same
// objects on the in-process store, and lfa.Close empties it.
func TestBucket_SharedStore(t *testing.T) {
	b1 := openEmbedded(t, "rubinobs-lfa-shared")
	ctx := testCtx(t)
	if _, err := b1.Upload(ctx, "k", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	b2, err := lfa.Open(ctx, "rubinobs-lfa-shared", lfa.WithEndpoint(""))
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	var buf bytes.Buffer
	if _, err := b2.Download(ctx, "k", &buf); err != nil || buf.String() != "hello" {
		t.Fatalf("second Bucket: Download = %q, %v; want hello", buf.String(), err)
	}
	if err := lfa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := lfa.Close(); err != nil {
		t.Fatalf("lfa.Close twice: %v", err)
	}
	b3 := openEmbedded(t, "rubinobs-lfa-shared")
	if ok, err := b3.Exists(ctx, "k"); ok || err != nil {
		t.Fatalf("after lfa.Close, a new store: Exists = %v, %v; want false", ok, err)
	}
}

func TestBucket_UploadFile(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test", lfa.WithPartSize(lfa.MinPartSize))
	path := filepath.Join(t.TempDir(), "f.fits")
	size := int64(lfa.MinPartSize + 1000)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, newPattern(size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var last [2]int64
	n, err := b.UploadFile(testCtx(t), "f.fits", path, lfa.WithContentType("image/fits"),
		lfa.WithProgress(func(done, total int64) { last = [2]int64{done, total} }))
	if err != nil || n != size {
		t.Fatalf("UploadFile = %d, %v; want %d", n, err, size)
	}
	if last != [2]int64{size, size} {
		t.Fatalf("progress: last call %v, want (%d, %d)", last, size, size)
	}
	var buf bytes.Buffer
	if _, err := b.Download(testCtx(t), "f.fits", &buf); err != nil {
		t.Fatal(err)
	}
	if sum(t, &buf) != sum(t, newPattern(size)) {
		t.Fatal("downloaded bytes differ from the file's")
	}
	_, err = b.UploadFile(testCtx(t), "g", filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), `key "g"`) {
		t.Fatalf("UploadFile(missing file) = %v, want ErrNotExist naming the key", err)
	}
}

// TestBucket_UploadMemoryBounded uploads 40 MiB from an io.Reader to a
// store in another process and measures the bytes this process
// allocates: the upload holds part size × concurrency bytes, not the
// file.
func TestBucket_UploadMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("40 MiB upload")
	}
	url := startStoreProcess(t)
	setFakeCredentials(t, "AKIDMEMORYTEST", "memory-test-secret")
	const (
		size        = 40 << 20
		partSize    = lfa.MinPartSize
		concurrency = 2
	)
	ctx := testCtx(t)
	b, err := lfa.Open(ctx, "rubinobs-lfa-memory", lfa.WithEndpoint(url), lfa.WithCreate(),
		lfa.WithPartSize(partSize), lfa.WithConcurrency(concurrency))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Warm up the client (credentials, connections) outside the measure.
	if _, err := b.Upload(ctx, "warm", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := b.Upload(ctx, "big.dat", newPattern(size))
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("Upload = %d, %v; want %d", n, err, size)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("40 MiB upload from an io.Reader (part %d MiB × %d): %d bytes allocated (%.1f%% of the file)",
		partSize>>20, concurrency, alloc, 100*float64(alloc)/size)
	if limit := uint64(size / 3); alloc >= limit {
		t.Fatalf("upload of %d bytes allocated %d bytes, want < %d (a third of the file)", size, alloc, limit)
	}
	if limit := uint64(partSize*concurrency + 2<<20); alloc >= limit {
		t.Fatalf("upload allocated %d bytes, want < part size × concurrency + 2 MiB = %d", alloc, limit)
	}

	h := sha256.New()
	if _, err := b.Download(ctx, "big.dat", h); err != nil {
		t.Fatal(err)
	}
	if [32]byte(h.Sum(nil)) != sum(t, newPattern(size)) {
		t.Fatal("downloaded bytes differ from the uploaded ones (sha256)")
	}

	// A file: read part by part as each is sent, no buffers of the part
	// size at all.
	path := filepath.Join(t.TempDir(), "big.fits")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, newPattern(size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err = b.UploadFile(ctx, "big.fits", path)
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("UploadFile = %d, %v; want %d", n, err, size)
	}
	alloc = after.TotalAlloc - before.TotalAlloc
	t.Logf("40 MiB UploadFile (part %d MiB × %d): %d bytes allocated (%.1f%% of the file)",
		partSize>>20, concurrency, alloc, 100*float64(alloc)/size)
	if limit := uint64(partSize); alloc >= limit {
		t.Fatalf("UploadFile of %d bytes allocated %d bytes, want < one part (%d)", size, alloc, limit)
	}
	h.Reset()
	if _, err := b.Download(ctx, "big.fits", h); err != nil {
		t.Fatal(err)
	}
	if [32]byte(h.Sum(nil)) != sum(t, newPattern(size)) {
		t.Fatal("UploadFile: downloaded bytes differ from the file's (sha256)")
	}
}

// setFakeCredentials sets the standard AWS variables for the test, and
// keeps any shared files or profile of the machine out of it.
func setFakeCredentials(t *testing.T, id, secret string) {
	dir := t.TempDir()
	t.Setenv("AWS_ACCESS_KEY_ID", id)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// TestBucket_ErrorNamesWhereNotSecret: a failed upload names endpoint,
// bucket and key, and no credential.
func TestBucket_ErrorNamesWhereNotSecret(t *testing.T) {
	store := openEmbedded(t, "rubinobs-lfa-test") // starts the store
	const id, secret = "AKIDERRORTEST0001", "s3cr3t-Do-Not-Print-9f8e7d"
	setFakeCredentials(t, id, secret)
	ctx := testCtx(t)
	b, err := lfa.Open(ctx, "no-such-bucket", lfa.WithEndpoint(store.Endpoint()))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, size := range []int64{10, 2*lfa.DefaultPartSize + 1} {
		_, err = b.Upload(ctx, "ATCamera/raw/2026/12/05/x.fits", newPattern(size))
		if err == nil {
			t.Fatal("upload to a missing bucket succeeded")
		}
		if !errors.Is(err, lfa.ErrNotFound) {
			t.Errorf("upload to a missing bucket: %v, want ErrNotFound", err)
		}
		text := err.Error()
		for _, want := range []string{store.Endpoint(), `"no-such-bucket"`, `"ATCamera/raw/2026/12/05/x.fits"`} {
			if !strings.Contains(text, want) {
				t.Errorf("error %q does not name %s", text, want)
			}
		}
		if strings.Contains(text, secret) || strings.Contains(text, id) {
			t.Errorf("error %q holds a credential", text)
		}
	}

	// A store that is not there: connection refused, retried, then an
	// error naming the endpoint.
	_, err = lfa.Open(ctx, "b", lfa.WithEndpoint("http://user:"+secret+"@127.0.0.1:1"))
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("Open with user info in the URL: %v, want an error without the password", err)
	}
}

func TestBucket_CloseTwice(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test")
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := b.Size(testCtx(t), "k"); !errors.Is(err, lfa.ErrClosed) {
		t.Fatalf("Size after Close: %v, want ErrClosed", err)
	}
}

func TestOpen_BadOptions(t *testing.T) {
	ctx := testCtx(t)
	for _, c := range []struct {
		name string
		opts []lfa.Option
		want string
	}{
		{"", nil, "bucket name is empty"},
		{"b", []lfa.Option{lfa.WithEndpoint("ftp://x")}, "scheme must be http or https"},
		{"b", []lfa.Option{lfa.WithEndpoint("http://127.0.0.1:1"), lfa.WithPartSize(1 << 20)}, "part size 1048576"},
		{"b", []lfa.Option{lfa.WithEndpoint("http://127.0.0.1:1"), lfa.WithConcurrency(-1)}, "concurrency -1"},
	} {
		b, err := lfa.Open(ctx, c.name, c.opts...)
		if err == nil {
			b.Close()
			t.Fatalf("Open(%q) succeeded, want %q", c.name, c.want)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Open(%q): %v, want %q", c.name, err, c.want)
		}
	}
}

// TestBucket_RealStore runs the round trip on the store of
// S3_ENDPOINT_URL (and the AWS credentials of the environment), in the
// bucket SALGO_LFA_TEST_BUCKET (default rubinobs-lfa-salgotest, created
// if missing). Skipped when S3_ENDPOINT_URL is not set.
func TestBucket_RealStore(t *testing.T) {
	endpoint := os.Getenv(lfa.EnvEndpoint)
	if endpoint == "" {
		t.Skip(lfa.EnvEndpoint + " not set: no real store")
	}
	name := os.Getenv("SALGO_LFA_TEST_BUCKET")
	if name == "" {
		name = "rubinobs-lfa-salgotest"
	}
	b, err := lfa.Open(testCtx(t), name, lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Embedded() {
		t.Fatal("with S3_ENDPOINT_URL set, Open used the in-process store")
	}
	key := fmt.Sprintf("salgo/test/%d", time.Now().UnixNano())
	roundTrip(t, b, key+"-small.dat", 1000)
	roundTrip(t, b, key+"-multi.dat", lfa.DefaultPartSize+1)
}

// TestBucket_CloseLeavesNoConnections: Close closes the bucket's
// connections while the store stays up (a real store outlives the
// process's Buckets).
func TestBucket_CloseLeavesNoConnections(t *testing.T) {
	store, err := s3store.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	setFakeCredentials(t, "AKIDCLOSE", "close-secret")
	base := leaktest.Begin()
	ctx := testCtx(t)
	b, err := lfa.Open(ctx, "rubinobs-lfa-close", lfa.WithEndpoint(store.URL()), lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Upload(ctx, "k", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Download(ctx, "k", io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	base.Verify(t)
}

// failingReader yields n bytes of a pattern, then err.
type failingReader struct {
	r   io.Reader
	err error
}

func (f *failingReader) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

// TestBucket_FailedUploadLeavesNothing: a reader that fails, or a
// context cancelled, half way through a multipart upload: an error
// naming the key, and no object.
func TestBucket_FailedUploadLeavesNothing(t *testing.T) {
	b := openEmbedded(t, "rubinobs-lfa-test", lfa.WithPartSize(lfa.MinPartSize), lfa.WithConcurrency(2))
	ctx := testCtx(t)
	boom := errors.New("camera readout failed")
	_, err := b.Upload(ctx, "read-fails", &failingReader{io.LimitReader(newPattern(1<<40), 3*lfa.MinPartSize+5), boom})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), `key "read-fails"`) {
		t.Fatalf("Upload from a failing reader: %v, want the reader's error naming the key", err)
	}
	if ok, err := b.Exists(ctx, "read-fails"); ok || err != nil {
		t.Fatalf("Exists after a failed read = %v, %v; want false", ok, err)
	}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, err = b.Upload(cctx, "cancelled", newPattern(6*lfa.MinPartSize),
		lfa.WithProgress(func(done, total int64) { cancel() }))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `key "cancelled"`) {
		t.Fatalf("Upload cancelled after its first part: %v, want context.Canceled naming the key", err)
	}
	if ok, err := b.Exists(ctx, "cancelled"); ok || err != nil {
		t.Fatalf("Exists after a cancelled upload = %v, %v; want false", ok, err)
	}
}
