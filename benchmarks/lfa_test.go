package benchmarks

//lint:file-ignore SA1019 the baseline is the library's own uploader, feature/s3/manager, deprecated or not

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/lsst-sal/salgo/internal/s3child"
	"github.com/lsst-sal/salgo/lfa"
)

// envLFASize sets the size of BenchmarkLFAUpload's object: a number of
// bytes with an optional KiB, MiB or GiB suffix. Default lfaDefaultSize.
const envLFASize = "SALGO_LFA_BENCH_SIZE"

// lfaDefaultSize keeps plain `go test -bench .` quick.
const lfaDefaultSize = 64 << 20

// TestMain serves the LFA store when the binary is its child process
// (s3child), and otherwise runs the benchmarks and then stops what they
// started.
func TestMain(m *testing.M) {
	s3child.Serve()
	code := m.Run()
	stopLFAFixtures()
	os.Exit(code)
}

// The store process and the temporary file, shared by every run of
// BenchmarkLFAUpload in one process and stopped by TestMain.
var lfaFix struct {
	mu    sync.Mutex
	store *s3child.Process
	dir   string
	file  string // lfaFix.size bytes of lfaPattern
	size  int64
	// warm is the size of the object uploaded (untimed) before the
	// first case, so that the store's first growth to an object of that
	// size is no case's.
	warm int64
}

// lfaStoreURL starts the store in a child process (s3child), once, so
// that the store's copy of the uploaded bytes is not counted in this
// process's memory.
func lfaStoreURL(b *testing.B) string {
	b.Helper()
	lfaFix.mu.Lock()
	defer lfaFix.mu.Unlock()
	if lfaFix.store == nil {
		p, err := s3child.Start()
		if err != nil {
			b.Fatalf("LFA store process: %v", err)
		}
		lfaFix.store = p
	}
	return lfaFix.store.URL
}

// lfaFile returns a temporary file of size bytes of lfaPattern, written
// once per process and size.
func lfaFile(b *testing.B, size int64) string {
	b.Helper()
	lfaFix.mu.Lock()
	defer lfaFix.mu.Unlock()
	if lfaFix.file != "" && lfaFix.size == size {
		return lfaFix.file
	}
	if lfaFix.dir == "" {
		dir, err := os.MkdirTemp("", "salgo-lfa-bench-")
		if err != nil {
			b.Fatal(err)
		}
		lfaFix.dir = dir
	}
	path := filepath.Join(lfaFix.dir, "upload-"+strconv.FormatInt(size, 10))
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := io.Copy(w, newLFAPattern(size)); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	lfaFix.file, lfaFix.size = path, size
	return path
}

func stopLFAFixtures() {
	lfaFix.mu.Lock()
	defer lfaFix.mu.Unlock()
	if lfaFix.store != nil {
		if err := lfaFix.store.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "LFA store process:", err)
		}
		lfaFix.store = nil
	}
	if lfaFix.dir != "" {
		_ = os.RemoveAll(lfaFix.dir)
		lfaFix.dir, lfaFix.file = "", ""
	}
}

// lfaSize reads envLFASize.
func lfaSize(b *testing.B) int64 {
	b.Helper()
	s := strings.TrimSpace(os.Getenv(envLFASize))
	if s == "" {
		return lfaDefaultSize
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number of bytes, with an optional KiB, MiB or GiB suffix", envLFASize, os.Getenv(envLFASize))
	}
	return n * mult
}

// lfaPattern is a reader of n deterministic, incompressible-looking
// bytes (xorshift) that allocates nothing: the "file" of the reader cases.
type lfaPattern struct {
	n, off int64
	x      uint64
}

func newLFAPattern(n int64) *lfaPattern { return &lfaPattern{n: n, x: 0x9e3779b97f4a7c15} }

func (p *lfaPattern) Read(b []byte) (int, error) {
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

// memPeak samples the process's heap (runtime/metrics, which does not
// stop the world) every millisecond until stop, keeping the largest
// heap in use: live and not yet swept objects plus the unused part of
// in-use spans, as MemStats.HeapInuse.
type memPeak struct {
	heap    uint64
	done    chan struct{}
	stopped chan struct{}
}

var memSamples = []string{
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
}

func startMemPeak() *memPeak {
	p := &memPeak{done: make(chan struct{}), stopped: make(chan struct{})}
	s := make([]metrics.Sample, len(memSamples))
	for i, name := range memSamples {
		s[i].Name = name
	}
	sample := func() {
		metrics.Read(s)
		p.heap = max(p.heap, s[0].Value.Uint64()+s[1].Value.Uint64())
	}
	sample()
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				sample()
				return
			case <-t.C:
				sample()
			}
		}
	}()
	return p
}

// stop ends the sampling and returns the peak.
func (p *memPeak) stop() uint64 {
	close(p.done)
	<-p.stopped
	return p.heap
}

// resetPeakRSS resets the kernel's high-water mark of this process's
// resident set (Linux), reporting whether it could.
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns VmHWM (Linux), or 0.
func peakRSS() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// newBaselineS3 is an aws-sdk-go-v2 S3 client configured as
// internal/s3 configures its own for the embedded store: path style,
// static credentials (so requests are signed and bodies hashed the
// same), checksums only where required, the SDK's standard retryer, and
// as many idle connections per host.
func newBaselineS3(endpoint string, concurrency int) (*awss3.Client, func()) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = concurrency + 2
	c := awss3.New(awss3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "salgo-bench", SecretAccessKey: "salgo-bench", Source: "benchmark"}, nil
		}),
		HTTPClient:                 &http.Client{Transport: tr},
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
	return c, tr.CloseIdleConnections
}

// BenchmarkLFAUpload is issue 29's large upload: one object of
// SALGO_LFA_BENCH_SIZE bytes (default 64 MiB; BENCHMARKS.md §11 runs
// 1GiB) to the SDK's in-memory store (gofakes3) running in a child
// process, with the SDK's default part size (8 MiB) and concurrency (4):
//
//   - reader: lfa's Bucket.Upload of an io.Reader of generated bytes
//     (buffers parts: at most concurrency × part size);
//   - file: lfa's Bucket.UploadFile of a temporary file of the same bytes
//     (reads each part from the file as it is sent);
//   - sdk: the baseline, aws-sdk-go-v2's own uploader
//     (feature/s3/manager.Uploader) with the same part size and
//     concurrency, of the same file (*os.File: it reads parts in place);
//   - sdk-reader: the same uploader of the generated reader (it buffers).
//
// Reported beside MB/s (SetBytes) and B/op (the process's TotalAlloc per
// upload): peak-heap-MiB, the largest heap in use (MemStats.HeapInuse)
// sampled every millisecond during the uploads, each of which starts on
// a collected heap; peak-rss-MiB, the kernel's high-water mark of the
// process's resident set (Linux: VmHWM, reset when the case starts,
// after the heap is returned to the OS), which also counts the binary,
// the runtime and the test framework (~20 MiB). The object is deleted
// after each upload (not timed) so the store holds one at a time, and
// one object of the size is uploaded and deleted, untimed, before the
// first case of a process: the store's first growth to that size
// (page faults, its heap's first growth) otherwise falls on whichever
// case runs first.
func BenchmarkLFAUpload(b *testing.B) {
	size := lfaSize(b)
	url := lfaStoreURL(b)
	const bucketName = "rubinobs-lfa-bench"
	partSize, concurrency := int64(lfa.DefaultPartSize), lfa.DefaultConcurrency

	// lfa reads the standard AWS settings for a store at a URL: fixed
	// placeholder keys (the store checks no signature; requests are
	// signed and their bodies hashed as on a real store).
	b.Setenv("AWS_ACCESS_KEY_ID", "salgo-bench")
	b.Setenv("AWS_SECRET_ACCESS_KEY", "salgo-bench")
	b.Setenv("AWS_SESSION_TOKEN", "")
	b.Setenv("AWS_PROFILE", "")

	ctx := context.Background()
	bucket, err := lfa.Open(ctx, bucketName, lfa.WithEndpoint(url), lfa.WithCreate(),
		lfa.WithPartSize(partSize), lfa.WithConcurrency(concurrency))
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.Close()
	client, closeIdle := newBaselineS3(url, concurrency)
	defer closeIdle()
	uploader := manager.NewUploader(client, func(u *manager.Uploader) {
		u.PartSize = partSize
		u.Concurrency = concurrency
		u.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	})
	var path string // the file of file and sdk, made before they start

	lfaFix.mu.Lock()
	warm := lfaFix.warm == size
	lfaFix.warm = size
	lfaFix.mu.Unlock()
	if !warm {
		const key = "bench/warm-up"
		if _, err := bucket.Upload(ctx, key, newLFAPattern(size)); err != nil {
			b.Fatal(err)
		}
		if _, err := client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(bucketName), Key: aws.String(key)}); err != nil {
			b.Fatal(err)
		}
	}

	cases := []struct {
		name   string
		file   bool
		upload func(key string) (int64, error)
	}{
		{"reader", false, func(key string) (int64, error) {
			return bucket.Upload(ctx, key, newLFAPattern(size), lfa.WithContentType("application/octet-stream"))
		}},
		{"file", true, func(key string) (int64, error) {
			return bucket.UploadFile(ctx, key, path, lfa.WithContentType("application/octet-stream"))
		}},
		{"sdk", true, func(key string) (int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, err
			}
			defer f.Close()
			_, err = uploader.Upload(ctx, &awss3.PutObjectInput{
				Bucket: aws.String(bucketName), Key: aws.String(key), Body: f,
				ContentType: aws.String("application/octet-stream"),
			})
			return size, err
		}},
		{"sdk-reader", false, func(key string) (int64, error) {
			_, err := uploader.Upload(ctx, &awss3.PutObjectInput{
				Bucket: aws.String(bucketName), Key: aws.String(key), Body: newLFAPattern(size),
				ContentType: aws.String("application/octet-stream"),
			})
			return size, err
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.file {
				path = lfaFile(b, size)
			}
			b.SetBytes(size)
			b.ReportAllocs()
			// A collected heap, returned to the OS, so that each case's
			// peaks are its own.
			debug.FreeOSMemory()
			rss := resetPeakRSS()
			peak := startMemPeak()
			b.ResetTimer()
			for i := range b.N {
				key := fmt.Sprintf("bench/%s/%d", c.name, i)
				n, err := c.upload(key)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if got, err := bucket.Size(ctx, key); err != nil || got != size || n != size {
					b.Fatalf("%s: uploaded %d bytes, the store holds %d (%v), want %d", key, n, got, err, size)
				}
				if _, err := client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(bucketName), Key: aws.String(key)}); err != nil {
					b.Fatal(err)
				}
				runtime.GC() // each upload's peak its own, at any b.N
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(float64(peak.stop())/(1<<20), "peak-heap-MiB")
			if rss {
				b.ReportMetric(float64(peakRSS())/(1<<20), "peak-rss-MiB")
			}
		})
	}
}
