// Package remote is the client side of one SAL component instance, as
// ts_salobj's Remote: it sends commands and waits for their
// acknowledgements, and reads the component's events (with late-joiner
// history) and telemetry.
//
// Most programs get a Remote from sal.NewRemote; this package is the
// implementation and works on any topics.Domain.
package remote
