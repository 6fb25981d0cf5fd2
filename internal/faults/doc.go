// Package faults holds tests only: broker faults against real Apache Kafka
// brokers that the tests start, kill and restart themselves with
// scripts/kafka/kafka.sh, each in its own run folder on its own ports, so
// they never touch a broker other suites use.
//
//   - TestBrokerRestart: a Controller of MTM1M3 writes forceActuatorData at
//     1 kHz and takes about 100 commands/s from a Remote while the single
//     broker is killed (SIGKILL) or stopped (SIGTERM) and restarted on the
//     same data. With acks=all and the idempotent producer nothing
//     acknowledged is lost or duplicated; with acks=1 whatever is lost is
//     counted by the reader's ReaderStats.Lost. Every command ends with a
//     final acknowledgement or an error, never a hang.
//   - TestLeaderFailover: a three-node KRaft cluster (replication factor 3,
//     min.insync.replicas 2); the partition leader of the stream is killed;
//     nothing is lost or duplicated and the longest pause is reported.
//
// They run only with SALGO_FAULTS=1 (scripts/ci-integration.sh sets it) and
// need Java 17+ and Maven for kafka.sh, and TS_XML_DIR for MTM1M3. Other
// variables:
//
//	SALGO_KAFKA_SH           path of kafka.sh (default: scripts/kafka/kafka.sh of this module)
//	SALGO_FAULTS_PORT        first port to try (default 29092); the tests take a free block of ports from there
//	LSST_SCHEMA_REGISTRY_URL schema registry (default: the SDK's in-process registry)
//	SALGO_TEST_LOG           set to see the SDK's log on stderr
package faults
