package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/internal/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestRun(t *testing.T) {
	out := t.TempDir()
	var stderr bytes.Buffer
	if err := run([]string{"-xml=", "-out", out, "-version", "1.2.3", "Example"}, &stderr); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "example", "component.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`const XMLVersion = "1.2.3"`)) {
		t.Errorf("component.go lacks the version:\n%s", data)
	}
	// No component named: all of them.
	if err := run([]string{"-xml=", "-out", out}, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "script", "remote.go")); err != nil {
		t.Error(err)
	}
}

func TestRun_Errors(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-xml=", "Example"}, "-out is required"},
		{[]string{"-xml=", "-out", t.TempDir(), "Exampel"}, `unknown component "Exampel" in (embedded) (did you mean Example?)`},
		{[]string{"-xml=", "-out", t.TempDir(), "Nothing"}, `unknown component "Nothing" in (embedded) (it defines Example, Script)`},
		{[]string{"-xml=", "-out", filepath.Join(file, "x"), "Example"}, "output folder"},
		{[]string{"-xml=", "-out", file, "Example"}, "is not a folder"},
		{[]string{"-xml", filepath.Join(t.TempDir(), "none"), "-out", t.TempDir()}, "none"},
	} {
		var stderr bytes.Buffer
		err := run(c.args, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("salgen %q: %v, want %q", c.args, err, c.want)
		}
	}
}
