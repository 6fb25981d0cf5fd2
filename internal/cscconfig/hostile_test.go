package cscconfig_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestHostileOverrideNames(t *testing.T) {
	dir := t.TempDir()
	out := t.TempDir()
	secret := filepath.Join(out, "secret.yaml")
	if err := os.WriteFile(secret, []byte("string0: the secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_init.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, secret)
	c := newTest(t, "test", dir)
	for _, name := range []string{rel, "../x.yaml", secret, "/etc/passwd", "link.yaml"} {
		var err error
		n := allocated(func() { _, _, err = c.Load(context.Background(), name) })
		want := "configurationOverride filename='" + name + "' is not inside the configuration folder " + dir
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", name, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "the secret") {
			t.Errorf("%s: the error quotes the file: %v", name, err)
		}
		if n > 1<<20 {
			t.Errorf("%s: allocated %d bytes, want < 1 MiB", name, n)
		}
	}
}

func TestHostileGitRefs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "_init.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTest(t, "test", dir)
	for _, ref := range []string{"-p", "--output=/tmp/x", "a..b", "a b", "a\x01"} {
		var err error
		n := allocated(func() { _, _, err = c.Load(context.Background(), ":"+ref) })
		if err == nil || !strings.Contains(err.Error(), "is not a valid git reference") {
			t.Errorf("%q: err = %v, want a refusal", ref, err)
		}
		if n > 1<<20 {
			t.Errorf("%q: allocated %d bytes, want < 1 MiB", ref, n)
		}
	}
	if _, err := os.Stat("/tmp/x"); err == nil {
		t.Log("/tmp/x exists (not necessarily from this test)")
	}
}

func TestHostileBillionLaughsConfig(t *testing.T) {
	dir := t.TempDir()
	doc := "a0: &a0 [lol]\n"
	for i := 1; i <= 9; i++ {
		p := string(rune('0' + i - 1))
		doc += "a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat("*a"+p+",", 9) + "*a" + p + "]\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "_init.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newTest(t, "test", dir)
	var err error
	n := allocated(func() { _, _, err = c.Load(context.Background(), "") })
	if err == nil || !strings.Contains(err.Error(), "the document expands to more than 1000000 values through aliases (limit 1000000)") {
		t.Fatalf("err = %v", err)
	}
	if n > 4<<20 {
		t.Errorf("allocated %d bytes, want < 4 MiB", n)
	}
}
