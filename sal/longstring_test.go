package sal_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestWithUnboundedStrings: a Remote refuses, by default, a string longer
// than its IDL_Size, naming the field and bound; on a bus with
// WithUnboundedStrings it sends it, as a Python Remote does, and the CSC
// handles it.
func TestWithUnboundedStrings(t *testing.T) {
	long := strings.Repeat("y", 10_000)
	b := newBus(t)
	startCSC(t, b, 1)
	r := newRemote(t, b, 1)
	enable(t, r)
	_, err := r.Command(ctxT(t), "setScalars", map[string]any{"string0": long})
	if !errors.Is(err, validate.ErrStringLength) || !strings.Contains(err.Error(), "field string0: string length 10000 bytes exceeds bound 20") {
		t.Errorf("default bus: %v, want the bound named", err)
	}

	u, err := sal.Connect(ctxT(t), sal.WithSubname(b.Config().Subname), sal.WithBrokers(b.Config().Brokers...),
		sal.WithRegistry(b.Config().RegistryURL), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet),
		sal.WithUnboundedStrings())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if !u.Config().UnboundedStrings {
		t.Error("WithUnboundedStrings not in the Config")
	}
	ur := newRemote(t, u, 1)
	if ack, err := ur.Command(ctxT(t), "setScalars", map[string]any{"string0": long}); err != nil || ack.Code != sal.CmdComplete {
		t.Errorf("a 10 KB string0 with WithUnboundedStrings: %v, %v", ack, err)
	}
}
