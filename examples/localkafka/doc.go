// Command localkafka runs the SDK's in-process Kafka broker and schema
// registry on loopback ports until interrupted (SIGINT or SIGTERM), and
// prints the export lines that point other processes at them, so several
// programs can share one bus without installing Kafka:
//
//	go run ./examples/localkafka -env-file /tmp/salbus.env &
//	export LSST_KAFKA_BROKER_ADDR=127.0.0.1:41703
//	export LSST_SCHEMA_REGISTRY_URL=http://127.0.0.1:40215
//	export LSST_TOPIC_SUBNAME=sal
//	. /tmp/salbus.env && go run ./examples/salctl echo Example.scalars
//
// stdout carries only the export lines; everything else goes to stderr.
// The ports are picked by the system unless -kafka-port or -registry-port
// fix them (sal.WithEmbeddedPorts), so that the same export lines serve
// again after a restart:
//
//	go run ./examples/localkafka -kafka-port 9092 -registry-port 8081
//
// The broker is kfake (franz-go's in-memory Kafka) and the registry srfake:
// both keep everything in memory, and both go away with this process.
package main
