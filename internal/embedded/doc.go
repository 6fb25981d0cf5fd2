// Package embedded runs an in-process Kafka broker (franz-go's kfake) and
// a Confluent-compatible schema registry (franz-go's srfake) on loopback,
// for the SDK's embedded default, its tests and examples/localkafka. In
// memory by default; with Options.DataDir the bus (topics with their ids
// and records, schemas with their ids) is kept in a folder and served
// again by the next Start on it.
//
// It is a leaf: it imports no other package of the module.
package embedded
