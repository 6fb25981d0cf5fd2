package topics

import "time"

// SetLogClock makes in's rate-limited log use interval and clock, so that
// tests decide when an interval has passed.
func SetLogClock(in *Instance, interval time.Duration, clock func() time.Time) {
	in.rl.SetClock(interval, clock)
}

// SetDomainLogClock is SetLogClock for the limit of d's Kafka clients.
func SetDomainLogClock(d *Domain, interval time.Duration, clock func() time.Time) {
	d.cfg.rl.SetClock(interval, clock)
}

// FQDN is fqdn: socket.getfqdn with the lookups and hosts file given.
var FQDN = fqdn

// The plumbing of internal/plumb, for the tests.
var (
	WriteSeq     = writeSeq
	SetInline    = setInline
	NewOwnReader = newOwnReader
)
