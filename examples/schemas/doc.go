// Command schemas prints, for every topic of every (or one) SAL component,
// one JSON object per line with the Kafka topic name, the registry subject,
// the exact Avro schema text the reference registers, and its revCode.
//
//	go run ./examples/schemas [-xml DIR] [-component NAME] [-subname sal]
//
// Without -xml it reads TS_XML_DIR, or the SDK's embedded example
// component when that is unset. It needs no broker.
package main
