// Package embedded runs an in-process Kafka broker (franz-go's kfake) and
// a Confluent-compatible schema registry (franz-go's srfake) on loopback,
// for the SDK's embedded default, its tests and examples/localkafka.
//
// It is a leaf: it imports no other package of the module.
package embedded
