package interop

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/lfa"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

// TestLFAPythonPeer: the Large File Annex between Go and Python on the
// real broker and the real object store (S3_ENDPOINT_URL). A Go CSC saves
// a file (lfa.Save) and announces it; the Python peer reads the event and
// downloads the object with boto3, as salobj's AsyncS3Bucket does: same
// MD5. The reverse: Python uploads with boto3 under the key salobj's rules
// give (lfa.MakeKey, held to salobj's own results in package lfa) and
// writes largeFileObjectAvailable; a Go Remote reads it and downloads the
// same bytes.
func TestLFAPythonPeer(t *testing.T) {
	env := needInterop(t)
	if os.Getenv(lfa.EnvEndpoint) == "" {
		t.Skip("S3_ENDPOINT_URL is unset: the LFA interop test needs a real object store (scripts/s3/s3.sh, run by scripts/ci-integration.sh)")
	}
	comp := example(t)
	sub := subname(t)
	ctx := ctxFor(t, 3*time.Minute)
	bus := connect(t, comp.defs, sub)
	name, err := lfa.MakeBucketName("interop", lfa.DefaultCategory)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lfa.Open(ctx, name, lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	// Go saves, Python downloads.
	csc, err := bus.NewCSC(comp.name, comp.index, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB
	key, err := lfa.MakeKey(comp.name, lfa.IndexName(comp.index), "goInterop", sal.TAI(), lfa.WithSuffix(".bin"))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := lfa.Save(ctx, b, csc.MustEvent(lfa.EventName), key, bytes.NewReader(data),
		lfa.Announcement{Generator: "goInterop", MimeType: "application/octet-stream"})
	if err != nil {
		t.Fatal(err)
	}
	out := env.runPython(t, "lfaread", map[string]any{"subname": sub, "component": comp.name, "sal_dir": comp.salDir, "events": 1})
	sum := md5.Sum(data)
	if out["md5"] != hex.EncodeToString(sum[:]) || out["md5"] != saved.CheckSum || num(out["size"]) != int64(len(data)) ||
		out["key"] != key || out["bucket"] != name || out["generator"] != "goInterop" {
		t.Errorf("Python read %v; want key %s in %s, %d bytes, MD5 %x", out, key, name, len(data), sum)
	}

	// Python saves, Go downloads.
	r, err := bus.NewRemote(ctx, comp.name, comp.index, remote.WithReadOnly(), remote.WithInclude(lfa.EventName), remote.WithEventHistory(false))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	pyKey, err := lfa.MakeKey(comp.name, lfa.IndexName(comp.index), "pyInterop", sal.TAI(), lfa.WithSuffix(".dat"))
	if err != nil {
		t.Fatal(err)
	}
	const size = 5<<20 + 17 // not a multiple of a part or of 256
	w := env.runPython(t, "lfawrite", map[string]any{"subname": sub, "component": comp.name, "sal_dir": comp.salDir,
		"index": comp.index, "bucket": name, "key": pyKey, "size": size, "generator": "pyInterop", "mimeType": "text/plain"})
	ev, err := r.MustEvent(lfa.EventName).Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url := ev["url"].(string)
	if key, ok := b.Key(url); url != w["url"] || !ok || key != pyKey {
		t.Fatalf("event url %q (Python wrote %v), want %s", url, w["url"], b.URL(pyKey))
	}
	var got bytes.Buffer
	n, err := b.Download(ctx, pyKey, &got)
	if err != nil {
		t.Fatal(err)
	}
	gsum := md5.Sum(got.Bytes())
	if n != size || hex.EncodeToString(gsum[:]) != ev["checkSum"] || ev["byteSize"] != int32(size) || ev["generator"] != "pyInterop" {
		t.Errorf("Go downloaded %d bytes with MD5 %x; the event says %v bytes, %v", n, gsum, ev["byteSize"], ev["checkSum"])
	}
}
