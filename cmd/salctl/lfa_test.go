package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/lfa"
)

// TestLFA_LsGet: salctl lfa ls lists a component's files (every index, or
// one, or one observing day), and get fetches one by key or by the url of
// its event; a missing key and a missing store are errors with their
// exit statuses. On the in-process S3 store of this process.
func TestLFA_LsGet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	t.Cleanup(func() { _ = lfa.Close() })
	// salctl reaches the store as a real one, with credentials (the
	// in-process store takes any).
	t.Setenv("AWS_ACCESS_KEY_ID", "salctl-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "salctl-test-secret")
	t.Setenv("AWS_REGION", "us-east-1")
	b, err := lfa.Open(ctx, "rubinobs-lfa-salctl", lfa.WithCreate(), lfa.WithEndpoint(""))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	files := map[string]string{
		"Example:1/gen/2026/12/04/Example:1_gen_a.dat": "one",
		"Example:1/gen/2026/12/05/Example:1_gen_b.dat": "two!",
		"Example:2/gen/2026/12/05/Example:2_gen_c.dat": "three",
		"ExampleX/gen/2026/12/05/ExampleX_gen_d.dat":   "not Example's",
	}
	for k, v := range files {
		if _, err := b.Upload(ctx, k, strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"-endpoint", b.Endpoint(), "-bucket", b.Name()}
	ls := func(args ...string) (string, string, int) {
		t.Helper()
		out, errOut, status, err := runSalctl(ctx, append(append([]string{"lfa", "ls"}, args...), base...)...)
		if err != nil {
			errOut += err.Error()
		}
		return out, errOut, status
	}
	keys := func(out string) (ks []string) {
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(l); len(f) == 3 {
				ks = append(ks, f[2])
			}
		}
		return ks
	}
	if out, errOut, st := ls("Example"); st != 0 || strings.Join(keys(out), " ") != "Example:1/gen/2026/12/04/Example:1_gen_a.dat Example:1/gen/2026/12/05/Example:1_gen_b.dat Example:2/gen/2026/12/05/Example:2_gen_c.dat" ||
		!strings.Contains(errOut, "3 files, 12 bytes, in bucket rubinobs-lfa-salctl") {
		t.Errorf("ls Example: status %d\n%s%s", st, out, errOut)
	}
	if out, _, st := ls("Example:1", "-day", "2026-12-05"); st != 0 || strings.Join(keys(out), " ") != "Example:1/gen/2026/12/05/Example:1_gen_b.dat" {
		t.Errorf("ls Example:1 -day 2026-12-05: status %d\n%s", st, out)
	}
	if _, errOut, st := ls("Test"); st != 1 || !strings.Contains(errOut, "no files of Test") {
		t.Errorf("ls Test: status %d, want 1\n%s", st, errOut)
	}
	if _, errOut, st := ls("Example", "-day", "2026-12"); st != 2 || !strings.Contains(errOut, "is not YYYY-MM-DD") {
		t.Errorf("ls -day 2026-12: status %d, want 2\n%s", st, errOut)
	}

	dir := t.TempDir()
	dest := filepath.Join(dir, "b.dat")
	key := "Example:1/gen/2026/12/05/Example:1_gen_b.dat"
	_, errOut, st, err := runSalctl(ctx, append([]string{"lfa", "get", b.URL(key), "-o", dest}, base[:2]...)...)
	if err != nil {
		errOut += err.Error()
	}
	if got, _ := os.ReadFile(dest); st != 0 || string(got) != "two!" {
		t.Errorf("get URL: status %d, file %q\n%s", st, got, errOut)
	}
	out, _, st, err := runSalctl(ctx, append([]string{"lfa", "get", key, "-o", "-"}, base...)...)
	if st != 0 || out != "two!" {
		t.Errorf("get KEY -o -: status %d, %q, %v", st, out, err)
	}
	missing := filepath.Join(dir, "none")
	if _, _, st, err := runSalctl(ctx, append([]string{"lfa", "get", "Example:1/nope", "-o", missing}, base...)...); st != 1 || err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("get a missing key: status %d, want 1: %v", st, err)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("get of a missing key left a file: %v", err)
	}
	if _, _, st, err := runSalctl(ctx, "lfa", "ls", "Example", "-endpoint", "", "-bucket", "x"); st != 2 || err == nil || !strings.Contains(err.Error(), "no S3 store") {
		t.Errorf("ls without a store: status %d, want 2: %v", st, err)
	}
}
