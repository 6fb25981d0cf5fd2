package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestCommand_NameValue: salctl command takes FIELD=VALUE arguments, as
// the commander does, besides a JSON object; the CSC receives the values.
func TestCommand_NameValue(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := sharedBus(t, ctx, "namevalue")
	csc, err := b.NewCSC("Example", 4, controller.WithAllowMissing(), controller.WithInitialState(sal.Enabled))
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	var mu sync.Mutex
	var got []map[string]any
	if err := csc.HandleFunc("setScalars", func(_ context.Context, cmd *sal.Command) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, cmd.Data)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"int0=3", "double0=1.5", "string0=a b"},
		{`{"int0": 3, "double0": 1.5, "string0": "a b"}`},
	} {
		out, errText, status, err := runSalctl(ctx, append([]string{"command", "Example:4", "setScalars"}, args...)...)
		if status != 0 {
			t.Errorf("salctl command Example:4 setScalars %q: exit %d, %v\nstdout:\n%s\nstderr:\n%s", args, status, err, out, errText)
			continue
		}
		mu.Lock()
		d := got[len(got)-1]
		mu.Unlock()
		if d["int0"] != int32(3) || d["double0"] != 1.5 || d["string0"] != "a b" {
			t.Errorf("salctl command Example:4 setScalars %q: the CSC got int0 %#v, double0 %#v, string0 %#v", args, d["int0"], d["double0"], d["string0"])
		}
	}
	_, _, status, err := runSalctl(ctx, "command", "Example:4", "setScalars", "int1=3")
	if status != 2 || err == nil || !strings.Contains(err.Error(), `setScalars has no field "int1" (did you mean int0`) {
		t.Errorf("an unknown field: exit %d, %v; want 2 and a did-you-mean", status, err)
	}
}

// TestState_Override: salctl state COMPONENT TARGET -override gives the
// start command's configurationOverride, as ts_salobj's
// set_summary_state(override=).
func TestState_Override(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := sharedBus(t, ctx, "override")
	c, err := b.Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	in, err := b.NewInstance(c, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	starts, err := in.Reader(c.Command("start"), sal.ReaderOptions{QueueLen: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		t.Fatal(err)
	}
	csc, err := demoCSC(ctx, b, c, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	out, errText, status, err := runSalctl(ctx, "state", "Example:5", "DISABLED", "-override", "special.yaml")
	if status != 0 {
		t.Fatalf("salctl state Example:5 DISABLED -override special.yaml: exit %d, %v\nstdout:\n%s\nstderr:\n%s", status, err, out, errText)
	}
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	rec, err := starts.Next(wctx)
	if err != nil {
		t.Fatalf("no start command read: %v", err)
	}
	if rec["configurationOverride"] != "special.yaml" {
		t.Errorf("start configurationOverride %q, want special.yaml", rec["configurationOverride"])
	}
	if _, _, status, err := runSalctl(ctx, "state", "Example:5", "-override", "x.yaml"); status != 2 {
		t.Errorf("-override without TARGET: exit %d, %v; want 2", status, err)
	}
}

// embeddedBus makes salctl run on an in-process bus of its own, with its
// built-in peers, and the SDK's embedded definitions.
func embeddedBus(t *testing.T) {
	t.Setenv(topics.EnvBroker, "")
	os.Unsetenv(topics.EnvBroker) // unset (empty is an error): the in-process bus
	t.Setenv(salxml.EnvDir, "")
	os.Unsetenv(salxml.EnvDir)
}

// TestHistory_BareName: history takes a bare topic name (summaryState),
// as the attribute and SAL names; an ambiguous one is a usage error.
func TestHistory_BareName(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	embeddedBus(t)
	out, errText, status, err := runSalctl(ctx, "history", "Example", "summaryState")
	if status != 0 || !strings.Contains(out, "history Example.logevent_summaryState: salIndex 1:") {
		t.Errorf("salctl history Example summaryState: exit %d, %v\nstdout:\n%s\nstderr:\n%s", status, err, out, errText)
	}
}

// TestEcho_UnknownComponent: echo of a mistyped component fails at once
// with a usage error naming it and the close match; one with no close
// match is read schema-unaware, with a warning naming it.
func TestEcho_UnknownComponent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	embeddedBus(t)
	out, errText, status, err := runSalctl(ctx, "echo", "Exampel.scalars", "-timeout", "3s")
	if status != 2 || err == nil || !strings.Contains(err.Error(), `unknown component "Exampel" (did you mean Example?)`) {
		t.Errorf("salctl echo Exampel.scalars: exit %d, %v; want 2 and a did-you-mean\nstdout:\n%s\nstderr:\n%s", status, err, out, errText)
	}
	_, errText, _, _ = runSalctl(ctx, "echo", "Nosuch.scalars", "-timeout", "1s")
	if !strings.Contains(errText, "salctl echo: warning: Nosuch is not a component of the definitions") {
		t.Errorf("salctl echo Nosuch.scalars: no warning naming the component:\n%s", errText)
	}
}
