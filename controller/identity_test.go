package controller_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
)

// TestCSC_OwnRemotesCarryItsIdentity: Remotes made on a CSC's Domain after
// the CSC carry its identity Name:index, as ts_salobj's Domain does once a
// Controller is made on it; a Remote made before, and one on another
// Domain, carry user@fqdn; the CSC's own Remote commands another CSC (of
// another Domain on the same bus) and gets its acks.
func TestCSC_OwnRemotesCarryItsIdentity(t *testing.T) {
	cfg, _ := testbus.Config(t, nil)
	d := testbus.Connect(t, cfg)
	peerDomain := testbus.Connect(t, cfg)
	other := testbus.Connect(t, cfg)
	before, err := remote.New(d, "Example", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer before.Close()
	startCSC(t, d, 1)
	peer := startCSC(t, peerDomain, 2)
	own := newRemote(t, d, 2)
	elsewhere, err := remote.New(other, "Example", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	if got := own.Identity(); got != "Example:1" {
		t.Errorf("a Remote made after the CSC Example:1: identity %q", got)
	}
	if got := before.Identity(); got != d.UserHost() {
		t.Errorf("a Remote made before the CSC: identity %q, want %q", got, d.UserHost())
	}
	if got := elsewhere.Identity(); got != other.UserHost() {
		t.Errorf("a Remote on another Domain: identity %q, want %q", got, other.UserHost())
	}
	if got := peer.Identity(); got != "Example:2" {
		t.Errorf("the second CSC's own identity %q", got)
	}
	for _, c := range []string{"start", "enable", "setScalars"} {
		if a := command(t, own, c, nil); a.Identity != "Example:1" {
			t.Errorf("%s: ack for identity %q", c, a.Identity)
		}
	}
}
