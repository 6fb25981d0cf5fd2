// Command localkafka runs the SDK's in-process Kafka broker and schema
// registry on loopback ports until interrupted (SIGINT or SIGTERM), and
// prints the export lines that point other processes at them, so several
// programs can share one bus without installing Kafka:
//
//	go run ./examples/localkafka -env-file /tmp/salbus.env &
//	export LSST_KAFKA_BROKER_ADDR=127.0.0.1:41703
//	export LSST_SCHEMA_REGISTRY_URL=http://127.0.0.1:40215
//	export LSST_TOPIC_SUBNAME=sal
//	. /tmp/salbus.env && salctl echo Example.scalars   # cmd/salctl
//
// stdout carries only the export lines; everything else goes to stderr.
// The ports are picked by the system unless -kafka-port or -registry-port
// fix them (sal.WithEmbeddedPorts), so that the same export lines serve
// again after a restart.
//
// The broker is kfake (franz-go's Kafka in a process) and the registry
// srfake. Without -data both keep everything in memory: a restart is a
// new, empty bus, on which the clients of the old one never recover
// (their topics are gone), so every client must be restarted too. With
// -data DIR (sal.WithEmbeddedDataDir) the bus is kept in DIR: topics with
// their ids and records, and every registered schema with its id; with
// the same ports too, a restart serves the same bus and its clients carry
// on as after a real broker's restart:
//
//	go run ./examples/localkafka -data ~/.salbus -kafka-port 9092 -registry-port 8081
package main
