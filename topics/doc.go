// Package topics is the SDK's runtime: a Domain (one process's Kafka
// producer and schema registry client), component Instances (one Kafka
// consumer each, as ts_salobj's SalInfo), topic Writers that stamp,
// validate, encode and send records, and topic Readers that decode,
// filter and deliver them, including the newest event per SAL index to a
// late joiner. Most programs reach these types through package sal
// (sal.Connect, sal.NewRemote, sal.NewCSC); topics is also for programs
// that work below Remotes and Controllers (a recorder, a bridge, a tool
// that reads topics by name).
//
// Records are map[string]any with the canonical Go type of each SAL type
// (see package validate). The wire format follows ts_salobj 8 byte for
// byte: topic names, subjects, keys, Confluent framing, private fields.
//
// # Lifecycle
//
// Create readers and writers on an Instance, then Start it: Start creates
// missing topics, registers schemas, seeks each reader to its history and
// returns once history is caught up. Close stops every goroutine the
// Instance owns and is safe to call twice; after Close, calls return
// ErrClosed.
//
// The protocol's plumbing that only the Remote and Controller roles use
// (explicit sequence numbers, readers called on the poll goroutine,
// consumers of their own) is not part of this API; the roles reach it
// through internal/plumb.
package topics
