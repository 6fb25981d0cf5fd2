// Command savefile saves a file to the Large File Annex as a salobj CSC
// does, and reads it back as a consumer of the announcement would: a CSC
// of the Example component uploads a small text file under the key
// lfa.MakeKey gives and writes largeFileObjectAvailable (lfa.Save); a
// Remote reads that event and downloads the file from its url.
//
// With nothing configured it runs on the in-process Kafka and the
// in-process S3 store; set LSST_* for a real broker and S3_ENDPOINT_URL
// (with the usual AWS credentials) for a real store:
//
//	go run ./examples/savefile
package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/lfa"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx); err != nil {
		log.Println("savefile:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	if _, err := sal.Default(ctx, sal.WithDefinitions(sal.EmbeddedDefinitions())); err != nil {
		return err
	}
	defer sal.Close()
	defer lfa.Close() // the in-process store, if one was started

	// The bucket: salobj's name for the "test" instance of the LFA.
	name, err := lfa.MakeBucketName("test", lfa.DefaultCategory)
	if err != nil {
		return err
	}
	bucket, err := lfa.Open(ctx, name, lfa.WithCreate())
	if err != nil {
		return err
	}
	defer bucket.Close()

	// The producer: a CSC, and the consumer: a Remote of it.
	csc, err := sal.NewCSC("Example", 1, controller.WithAllowMissing())
	if err != nil {
		return err
	}
	defer csc.Close()
	if err := csc.Start(ctx); err != nil {
		return err
	}
	r, err := sal.NewRemote("Example", 1, remote.WithInclude(lfa.EventName), remote.WithEventHistory(false))
	if err != nil {
		return err
	}
	defer r.Close()

	// Save: the key salobj would make for this file, the upload, then
	// the announcement (never for a file that did not land).
	key, err := lfa.MakeKey("Example", lfa.IndexName(1), "savefile", sal.TAI(), lfa.WithSuffix(".txt"))
	if err != nil {
		return err
	}
	text := strings.Repeat("a spectrum, one line of it\n", 100)
	saved, err := lfa.Save(ctx, bucket, csc.MustEvent(lfa.EventName), key, strings.NewReader(text),
		lfa.Announcement{Generator: "savefile", MimeType: "text/plain", Version: 1})
	if err != nil {
		return err
	}
	fmt.Printf("saved %d bytes to bucket %s (key %s)\n", saved.ByteSize, bucket.Name(), saved.Key)

	// Consume: the event says where the file is and what it holds.
	ev, err := r.MustEvent(lfa.EventName).Next(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("largeFileObjectAvailable: generator %s, %d bytes, checkSum %s, mimeType %s\n",
		ev["generator"], ev["byteSize"], ev["checkSum"], ev["mimeType"])
	key, ok := bucket.Key(ev["url"].(string))
	if !ok {
		return fmt.Errorf("url %s is not in bucket %s", ev["url"], bucket.Name())
	}
	var got strings.Builder
	n, err := bucket.Download(ctx, key, &got)
	if err != nil {
		return err
	}
	sum := md5.Sum([]byte(got.String()))
	if hex.EncodeToString(sum[:]) != ev["checkSum"] {
		return fmt.Errorf("downloaded %d bytes whose MD5 is not the announced one", n)
	}
	fmt.Printf("downloaded %d bytes: the checksum matches\n", n)
	fmt.Println("savefile: done")
	return nil
}
