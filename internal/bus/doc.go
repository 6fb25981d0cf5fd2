// Package bus is the SDK's runtime, whose public face is package topics:
// a Domain (one Kafka producer and one schema registry client per process), component Instances (one consumer
// each, as ts_salobj's SalInfo, plus one per reader that asks for its own,
// such as a Remote's acks), topic Writers that stamp, validate, encode
// and send records, and topic Readers that decode, filter and deliver them,
// including the newest event per SAL index to a late joiner.
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
// Besides the types topics re-exports, bus holds the protocol's plumbing
// that the remote and controller packages need and applications do not:
// WriteSeq and WriteSeqAsync (explicit sequence numbers), SetInline
// (records handed over on the poll goroutine), NewOwnReader (a consumer of
// its own), SeqNums (the reference's command sequence numbers) and the ack
// record conversions AckFromRecord and AckFields.
package bus
