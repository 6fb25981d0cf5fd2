package main

import (
	"context"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/saltest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// opts puts the CSC on a bus with the program's own definitions (the
// embedded Example component, also when TS_XML_DIR is set).
func opts(csc ...sal.CSCOption) saltest.Options {
	return saltest.Options{Index: 1, Bus: Spec().Bus, CSC: csc}
}

// TestTelemetryLoop: in simulation, the first sample follows summaryState
// ENABLED and the samples count up; after disable none follows DISABLED.
func TestTelemetryLoop(t *testing.T) {
	h := saltest.NewCSC(t, Spec().Maker(), opts(controller.WithSimulationMode(1)))
	ctx, cancel := context.WithTimeout(context.Background(), saltest.MakeTimeout)
	defer cancel()
	if _, err := sal.SetSummaryState(ctx, h.Remote, sal.Enabled, ""); err != nil {
		t.Fatal(err)
	}
	tel := h.Remote.MustTelemetry("scalars")
	first := h.AssertNextSample(t, tel, map[string]any{"int0": int32(1)}, 0)
	// SetSummaryState trusts the acks; summaryState is read on another
	// topic and may not have arrived yet.
	if _, err := sal.WaitForSummaryState(ctx, h.Remote, sal.Enabled); err != nil {
		t.Fatal(err)
	}
	enabled := h.Remote.MustEvent("summaryState").Get()
	if first["private_sndStamp"].(float64) < enabled["private_sndStamp"].(float64) {
		t.Error("the first sample was sent before summaryState ENABLED")
	}
	h.AssertNextSample(t, tel, map[string]any{"int0": int32(2)}, 0)
	if _, err := sal.SetSummaryState(ctx, h.Remote, sal.Disabled, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := sal.WaitForSummaryState(ctx, h.Remote, sal.Disabled); err != nil {
		t.Fatal(err)
	}
	disabled := h.Remote.MustEvent("summaryState").Get()
	for rec := tel.TryNext(); rec != nil; rec = tel.TryNext() {
		if rec["private_sndStamp"].(float64) > disabled["private_sndStamp"].(float64) {
			t.Errorf("sample %v sent after summaryState DISABLED", rec["int0"])
		}
	}
}

// TestNoSensor: in simulation mode 0 the loop's first reading fails, and
// the CSC goes to FAULT with errorCode 1 and the reading's error.
func TestNoSensor(t *testing.T) {
	h := saltest.NewCSC(t, Spec().Maker(), opts())
	_, err := sal.SetSummaryState(context.Background(), h.Remote, sal.Enabled, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), saltest.MakeTimeout)
	defer cancel()
	for s := sal.State(0); s != sal.Fault; { // STANDBY, DISABLED, ENABLED, then FAULT
		rec, err := h.Remote.MustEvent("summaryState").Next(ctx)
		if err != nil {
			t.Fatalf("no FAULT: %v", err)
		}
		s = sal.State(rec["summaryState"].(int32))
	}
	// errorCode is written before FAULT, but it is another topic: it may
	// reach the Remote after the state. The first nonzero one is the fault's.
	ec := map[string]any{"errorCode": int32(0)}
	for ec["errorCode"] == int32(0) {
		if ec, err = h.Remote.MustEvent("errorCode").Next(ctx); err != nil {
			t.Fatalf("no errorCode: %v", err)
		}
	}
	if ec["errorCode"] != int32(1) || !strings.HasPrefix(ec["errorReport"].(string), "telemetry failed: no sensor connected") {
		t.Errorf("errorCode %v, want 1 and the reading's error", ec)
	}
}
