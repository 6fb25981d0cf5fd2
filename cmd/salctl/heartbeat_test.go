package main

import (
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

// TestCommand_NoCSC: salctl command -wait to a CSC that is not running
// says so within seconds, long before its 60 s timeout, on a plain line of
// salctl's (no raw slog line), and keeps waiting.
func TestCommand_NoCSC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	broker, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()),
		sal.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	t.Setenv(topics.EnvBroker, strings.Join(broker.Config().Brokers, ","))
	t.Setenv(topics.EnvRegistry, broker.Config().RegistryURL)
	t.Setenv(topics.EnvSubname, "nocsc")
	t.Setenv(salxml.EnvDir, "")
	os.Unsetenv(salxml.EnvDir)

	cctx, stop := context.WithCancel(ctx)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(&env{ctx: cctx, stdout: &stdout, stderr: &stderr}, []string{"command", "Example:3", "setScalars", "-wait"})
	}()
	const hint = "no heartbeat of Example:3 has been seen: is its CSC running?"
	guard := time.After(20 * time.Second) // a guard: the hint comes 2 s after the command
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(stderr.String(), hint) {
		select {
		case err := <-done:
			t.Fatalf("salctl command returned before the hint: %v\nstderr: %s", err, stderr.String())
		case <-guard:
			stop()
			<-done
			t.Fatalf("no hint on stderr within 20 s:\n%s", stderr.String())
		case <-tick.C:
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the hint ended salctl command: %v", err)
	default:
	}
	if !strings.Contains(stderr.String(), "salctl command: warning: remote: "+hint) || strings.Contains(stderr.String(), "level=") {
		t.Errorf("the hint is not a plain line of salctl's:\n%s", stderr.String())
	}
	stop()
	<-done
}
