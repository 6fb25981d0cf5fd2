package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	pathpkg "path"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/lfa"
)

const lfaHelp = `  salctl lfa ls COMPONENT[:INDEX] [-day YYYY-MM-DD]   list a component's files
  salctl lfa get KEY|URL [-o FILE]                      fetch one (to stdout with -o -)

The Large File Annex is an S3 bucket, named as ts_salobj names it:
rubinobs-lfa-INSTANCE (-instance, default $LSST_SITE), or -bucket NAME. The
store is S3_ENDPOINT_URL (or -endpoint) with the usual AWS credentials
(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or -profile, ~/.aws).
Keys are COMPONENT[:INDEX]/GENERATOR/YYYY/MM/DD/..., the date being the
observing day (the TAI date 12 hours earlier): ls lists a component's keys
(every index without :INDEX), with -day those of one observing day. get
takes a key, or the url of a largeFileObjectAvailable event
({endpoint}/{bucket}/{key}); the file goes to -o FILE, by default the key's
base name in the current folder. Exit status 1 when ls finds nothing or get
finds no such object.`

// cmdLFA lists and fetches files of the Large File Annex.
func cmdLFA(e *env, args []string) error {
	fs := flags(e, "lfa")
	bucketName := fs.String("bucket", "", "bucket name (default: rubinobs-lfa-INSTANCE)")
	instance := fs.String("instance", os.Getenv("LSST_SITE"), "the LFA instance of the bucket's name (LSST_SITE)")
	endpoint := fs.String("endpoint", os.Getenv(lfa.EnvEndpoint), "S3 store URL (S3_ENDPOINT_URL)")
	profile := fs.String("profile", "", "AWS profile (default: AWS_PROFILE or the default chain)")
	day := fs.String("day", "", "ls: only the files of this observing day (YYYY-MM-DD)")
	out := fs.String("o", "", "get: the file to write (- for stdout; default: the key's base name)")
	asJSON := fs.Bool("json", false, "ls: print JSON lines")
	pos, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 || (pos[0] != "ls" && pos[0] != "get") {
		return cli.Usagef("lfa wants ls COMPONENT[:INDEX] or get KEY|URL")
	}
	if *endpoint == "" {
		return cli.Usagef("no S3 store: set S3_ENDPOINT_URL or give -endpoint URL (the LFA's store, with the AWS credentials of the site)")
	}
	key := pos[1]
	name := *bucketName
	if pos[0] == "get" {
		if rest, ok := strings.CutPrefix(key, strings.TrimSuffix(*endpoint, "/")+"/"); ok {
			b, k, found := strings.Cut(rest, "/")
			if !found || k == "" {
				return cli.Usagef("url %q names no key in a bucket of %s", key, *endpoint)
			}
			name, key = b, k
		} else if strings.Contains(key, "://") {
			return cli.Usagef("url %q is not on the store %s (set S3_ENDPOINT_URL or -endpoint to its store)", key, *endpoint)
		}
	}
	if name == "" {
		if *instance == "" {
			return cli.Usagef("no bucket: give -bucket NAME, or -instance (or LSST_SITE) for rubinobs-lfa-INSTANCE")
		}
		if name, err = lfa.MakeBucketName(*instance, lfa.DefaultCategory); err != nil {
			return cli.Usagef("%v", err)
		}
	}
	opts := []lfa.Option{lfa.WithEndpoint(*endpoint)}
	if *profile != "" {
		opts = append(opts, lfa.WithProfile(*profile))
	}
	b, err := lfa.Open(e.ctx, name, opts...)
	if err != nil {
		return err
	}
	defer b.Close()
	if pos[0] == "get" {
		return lfaGet(e, b, key, *out)
	}
	return lfaList(e, b, key, *day, *asJSON)
}

// lfaList lists the keys of a component (and index), of one observing
// day with day.
func lfaList(e *env, b *lfa.Bucket, comp, day string, asJSON bool) error {
	var dayPath string
	if day != "" {
		t, err := time.Parse(time.DateOnly, day)
		if err != nil {
			return cli.Usagef("-day %q is not YYYY-MM-DD", day)
		}
		dayPath = t.Format("/2006/01/02/")
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	n, bytes := 0, int64(0)
	enc := json.NewEncoder(e.stdout)
	for o, err := range b.Objects(e.ctx, comp) {
		if err != nil {
			return err
		}
		first, _, _ := strings.Cut(o.Key, "/")
		if first != comp && !(strings.HasPrefix(first, comp+":") && !strings.Contains(comp, ":")) {
			continue // another component whose name starts with comp's
		}
		if dayPath != "" && !strings.Contains(o.Key, dayPath) {
			continue
		}
		n++
		bytes += o.Size
		if asJSON {
			_ = enc.Encode(map[string]any{"key": o.Key, "size": o.Size, "modified": o.LastModified, "url": b.URL(o.Key)})
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t %s\n", o.Size, o.LastModified.UTC().Format("2006-01-02T15:04:05Z"), o.Key)
	}
	tw.Flush()
	fmt.Fprintf(e.stderr, "salctl lfa: %d files, %d bytes, in bucket %s at %s\n", n, bytes, b.Name(), b.Endpoint())
	if n == 0 {
		return fmt.Errorf("no files of %s in bucket %s", comp, b.Name())
	}
	return nil
}

// lfaGet writes the object at key to out (its base name by default).
func lfaGet(e *env, b *lfa.Bucket, key, out string) error {
	var w io.Writer = e.stdout
	if out == "" {
		out = pathpkg.Base(key)
	}
	if out != "-" {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	n, err := b.Download(e.ctx, key, w)
	if err != nil {
		if out != "-" {
			os.Remove(out) // no partial file
		}
		return err
	}
	if out != "-" {
		fmt.Fprintf(e.stderr, "salctl lfa: wrote %d bytes of %s to %s\n", n, key, out)
	}
	return nil
}
