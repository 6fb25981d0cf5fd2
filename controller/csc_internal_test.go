package controller

import (
	"context"
	"testing"

	"github.com/lsst-sal/salgo/internal/testbus"
)

// TestHeartbeatStopsAtOffline: the heartbeat runs from Start and stops
// when exitControl takes the CSC OFFLINE.
func TestHeartbeatStopsAtOffline(t *testing.T) {
	d := testbus.Domain(t, nil)
	s, err := NewCSC(d, "Example", 1, WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := testbus.Ctx(t)
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	running := func() bool {
		s.hbMu.Lock()
		defer s.hbMu.Unlock()
		return s.hbStop != nil
	}
	if !running() {
		t.Fatal("no heartbeat after Start")
	}
	cmd := &Command{Name: "exitControl", Data: map[string]any{}, c: s.c}
	if err := s.c.handlers["exitControl"].Handle(context.Background(), cmd); err != nil {
		t.Fatal(err)
	}
	if s.State() != Offline || running() {
		t.Errorf("after exitControl: state %s, heartbeat running %v", s.State().Name(), running())
	}
}
