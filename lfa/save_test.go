package lfa_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/lfa"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

// TestSave_Announces: Save uploads, then writes largeFileObjectAvailable
// with the url, the size and the MD5 of what landed; a Remote reads the
// event and downloads the same bytes. An upload that fails writes no
// event: the next event a Remote reads is the next file's.
func TestSave_Announces(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx, sal.WithDefinitions(sal.EmbeddedDefinitions()), sal.WithLogger(slog.New(slog.DiscardHandler))) // LSST_* and S3_ENDPOINT_URL when set (CI: the real broker and store)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	csc, err := bus.NewCSC("Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := bus.NewRemote(ctx, "Example", 1, remote.WithInclude(lfa.EventName), remote.WithEventHistory(false))
	if err != nil {
		t.Fatal(err)
	}
	b, err := lfa.Open(ctx, "rubinobs-lfa-savetest", lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Cleanup(func() { _ = lfa.Close() }) // the process-wide in-process store
	ev := csc.MustEvent(lfa.EventName)
	a := lfa.Announcement{Generator: "gotest", Version: 1.5, MimeType: "text/plain", ID: "obs-1"}

	// An upload that fails part-way: no object, no event.
	badKey, err := lfa.MakeKey("Example", "1", "gotest", sal.TAI(), lfa.WithOther("bad"), lfa.WithSuffix(".txt"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lfa.Save(ctx, b, ev, badKey, &failingReader{strings.NewReader(strings.Repeat("x", 100)), errors.New("the camera went away")}, a); err == nil || !strings.Contains(err.Error(), "the camera went away") {
		t.Fatalf("Save of a failing reader: %v, want its error", err)
	}
	if ok, err := b.Exists(ctx, badKey); ok || err != nil {
		t.Errorf("after a failed Save: Exists %v, %v; want no object", ok, err)
	}

	data := bytes.Repeat([]byte("spectrum 42\n"), 1000)
	key, err := lfa.MakeKey("Example", "1", "gotest", sal.TAI(), lfa.WithSuffix(".txt"))
	if err != nil {
		t.Fatal(err)
	}
	saved, err := lfa.Save(ctx, b, ev, key, bytes.NewReader(data), a)
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum(data)
	if saved.Key != key || saved.URL != b.URL(key) || saved.ByteSize != int64(len(data)) || saved.CheckSum != hex.EncodeToString(sum[:]) {
		t.Errorf("Saved %+v, want key %s, url %s, %d bytes, md5 %x", saved, key, b.URL(key), len(data), sum)
	}

	// The first event a Remote reads is the good file's.
	rec, err := r.MustEvent(lfa.EventName).Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"url": b.URL(key), "generator": "gotest", "version": float32(1.5), "byteSize": int32(len(data)),
		"checkSum": hex.EncodeToString(sum[:]), "mimeType": "text/plain", "id": "obs-1"}
	for f, v := range want {
		if rec[f] != v {
			t.Errorf("event %s = %#v, want %#v", f, rec[f], v)
		}
	}
	// The reader downloads what the url names.
	gotKey, _ := b.Key(rec["url"].(string))
	var got bytes.Buffer
	if _, err := b.Download(ctx, gotKey, &got); err != nil {
		t.Fatal(err)
	}
	if md5.Sum(got.Bytes()) != sum {
		t.Errorf("downloaded %d bytes with another checksum", got.Len())
	}
}

// TestSave_Refuses: a writer of another topic, no writer, or no generator
// is refused before anything is uploaded.
func TestSave_Refuses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bus, err := sal.Connect(ctx, sal.WithDefinitions(sal.EmbeddedDefinitions()), sal.WithLogger(slog.New(slog.DiscardHandler))) // LSST_* and S3_ENDPOINT_URL when set (CI: the real broker and store)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	c, err := bus.NewController("Example", 2, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	b, err := lfa.Open(ctx, "rubinobs-lfa-refuse", lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Cleanup(func() { _ = lfa.Close() })
	a := lfa.Announcement{Generator: "gotest"}
	for name, tc := range map[string]struct {
		ev   *sal.Writer
		a    lfa.Announcement
		want string
	}{
		"another topic": {c.MustEvent("summaryState"), a, "the writer is of summaryState, not largeFileObjectAvailable"},
		"no writer":     {nil, a, "no largeFileObjectAvailable writer"},
		"no generator":  {c.MustEvent(lfa.EventName), lfa.Announcement{}, "the announcement has no generator"},
	} {
		_, err := lfa.Save(ctx, b, tc.ev, "k-"+strings.ReplaceAll(name, " ", "-"), strings.NewReader("x"), tc.a)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
		if ok, _ := b.Exists(ctx, "k-"+strings.ReplaceAll(name, " ", "-")); ok {
			t.Errorf("%s: an object was uploaded", name)
		}
	}
}

// TestBucket_Objects: the listing of a prefix, in key order; a loop that
// stops early; a missing bucket is ErrNotFound.
func TestBucket_Objects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lfa.Open(ctx, "rubinobs-lfa-list", lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Cleanup(func() { _ = lfa.Close() })
	for _, k := range []string{"A:1/gen/2026/12/05/b.dat", "A:1/gen/2026/12/05/a.dat", "A:2/gen/2026/12/05/c.dat", "B/gen/x.dat"} {
		if _, err := b.Upload(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	for o, err := range b.Objects(ctx, "A:1/") {
		if err != nil {
			t.Fatal(err)
		}
		if o.Size != int64(len(o.Key)) || o.LastModified.IsZero() {
			t.Errorf("%s: size %d, modified %v", o.Key, o.Size, o.LastModified)
		}
		keys = append(keys, o.Key)
	}
	if strings.Join(keys, " ") != "A:1/gen/2026/12/05/a.dat A:1/gen/2026/12/05/b.dat" {
		t.Errorf("Objects(A:1/) = %v", keys)
	}
	n := 0
	for _, err := range b.Objects(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("a loop that stops after one object saw %d", n)
	}
	missing, err := lfa.Open(ctx, "rubinobs-lfa-nosuchbucket")
	if err != nil {
		t.Fatal(err)
	}
	defer missing.Close()
	var got error
	for _, err := range missing.Objects(ctx, "") {
		got = err
	}
	if !errors.Is(got, lfa.ErrNotFound) {
		t.Errorf("listing a missing bucket: %v, want ErrNotFound", got)
	}
}

// TestBucket_Key: Key reads back the key of what URL gives, and refuses a
// url of another bucket or store.
func TestBucket_Key(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := lfa.Open(ctx, "rubinobs-lfa-key", lfa.WithCreate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Cleanup(func() { _ = lfa.Close() })
	key := "Example:1/gen/2026/12/05/Example:1_gen_2026-12-05T20:00:00.000.dat"
	if k, ok := b.Key(b.URL(key)); !ok || k != key {
		t.Errorf("Key(URL(%q)) = %q, %v", key, k, ok)
	}
	for _, url := range []string{"s3://rubinobs-lfa-key/" + key, b.Endpoint() + "/other/" + key, b.URL("")} {
		if k, ok := b.Key(url); ok {
			t.Errorf("Key(%q) = %q, true; want false", url, k)
		}
	}
}
