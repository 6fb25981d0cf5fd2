package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
)

// TestExitStatuses: the listening verbs agree: a -timeout or -n run that
// ends with no record, or fewer than -n, exits 1 (echo, hz and bw alike);
// one that saw what it asked for exits 0. history with no data exits 1.
func TestExitStatuses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	embeddedBus(t)
	for _, c := range []struct {
		args   []string
		status int
		msg    string // in the error, when the status is not 0
	}{
		{[]string{"echo", "Nosuch.scalars", "-timeout", "1s"}, cli.StatusFailure, "timeout after 1s: no record"},
		{[]string{"hz", "Nosuch.scalars", "-timeout", "1s"}, cli.StatusFailure, "timeout after 1s: no record"},
		{[]string{"bw", "Nosuch.scalars", "-timeout", "1s"}, cli.StatusFailure, "timeout after 1s: no record"},
		{[]string{"hz", "Example.scalars", "-n", "1000000", "-timeout", "2s"}, cli.StatusFailure, "timeout after 2s: "},
		{[]string{"bw", "Example.scalars", "-n", "1000000", "-timeout", "2s"}, cli.StatusFailure, "timeout after 2s: "},
		{[]string{"echo", "Example.scalars", "-n", "1000000", "-timeout", "2s"}, cli.StatusFailure, "timeout after 2s: "},
		{[]string{"echo", "Example.scalars", "-n", "2", "-timeout", "60s"}, 0, ""},
		{[]string{"hz", "Example.scalars", "-n", "2", "-timeout", "60s"}, 0, ""},
		{[]string{"echo", "Example.scalars", "-timeout", "2s"}, 0, ""},
		{[]string{"hz", "Example.scalars", "-timeout", "2s"}, 0, ""},
	} {
		out, errText, status, err := runSalctl(ctx, c.args...)
		if status != c.status || c.status != 0 && (err == nil || !strings.Contains(err.Error(), c.msg)) {
			t.Errorf("salctl %s: exit %d, %v; want %d and %q\nstdout:\n%.500s\nstderr:\n%s", strings.Join(c.args, " "), status, err, c.status, c.msg, out, errText)
		}
	}
}

// TestHistory_NoData: history of a topic nobody wrote exits 1, as the
// other verbs that find nothing.
func TestHistory_NoData(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := sharedBus(t, ctx, "nohistory")
	defer b.Close()
	out, errText, status, err := runSalctl(ctx, "history", "Example", "evt_summaryState")
	if status != cli.StatusFailure || err == nil || !strings.Contains(err.Error(), "no historical data") {
		t.Errorf("salctl history of nothing: exit %d, %v; want 1 and \"no historical data\"\nstdout:\n%s\nstderr:\n%s", status, err, out, errText)
	}
}
