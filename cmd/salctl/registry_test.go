package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestSilentRegistry: on a broker whose schema registry accepts
// connections and never answers, salctl pub, command -timeout and state
// -timeout return within their limits (the registry's 10 s, or -timeout)
// with an error that names the registry.
func TestSilentRegistry(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	broker, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	url := silentServer(t)
	t.Setenv(topics.EnvBroker, strings.Join(broker.Config().Brokers, ","))
	t.Setenv(topics.EnvRegistry, url)
	t.Setenv(topics.EnvSubname, "silent")
	t.Setenv(salxml.EnvDir, "")
	os.Unsetenv(salxml.EnvDir)
	for _, c := range []struct {
		args  []string
		guard time.Duration // a guard against a hang: the limit, plus a margin for a loaded machine
	}{
		{[]string{"pub", "Example", "scalars", `{"int0": 1}`}, 40 * time.Second},
		{[]string{"command", "Example:1", "setScalars", "-timeout", "2s"}, 20 * time.Second},
		{[]string{"state", "Example:1", "-timeout", "2s"}, 20 * time.Second},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			ch := make(chan error, 1)
			go func() { ch <- run(&env{ctx: ctx, stdout: &stdout, stderr: &stderr}, c.args) }()
			var err error
			select {
			case err = <-ch:
			case <-time.After(c.guard):
				t.Fatalf("salctl %s did not return within %s", strings.Join(c.args, " "), c.guard)
			}
			if err == nil || !strings.Contains(err.Error(), "registry "+url+": register ") {
				t.Errorf("salctl %s: %v: want an error naming the registry\nstderr: %s", strings.Join(c.args, " "), err, stderr.String())
			}
		})
	}
}
