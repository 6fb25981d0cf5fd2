// Package controller is the server side of one SAL component instance, as
// ts_salobj's Controller and BaseCsc: it runs a handler per command and
// acknowledges each command as the reference does, and writes the
// component's events and telemetry. CSC adds the summary state machine,
// the heartbeat and the generic topics. Script is BaseScript: the Script
// component's state machine for SAL scripts the ScriptQueue runs.
//
// Most programs get a Controller or CSC from the sal package; this package
// is the implementation and works on any topics.Domain.
package controller
