// Package interop holds the tests that prove the SDK shares one bus with
// Python's ts_salobj 8 on a real Kafka broker and schema registry, and the
// tests of secured connections (SASL SCRAM-SHA-512, TLS, mutual TLS).
//
// It has no code of its own: everything is in _test.go files, plus the
// Python side in py/ (a ts_salobj stand-in built on confluent-kafka's
// registry-aware Avro serializer and deserializer) and, in cmd/registry, a
// stand-alone schema registry used when no real one can be started.
//
// The interop tests (each fails when the wire format differs):
//
//   - (a) Go writes events and telemetry; Python reads them with
//     AvroDeserializer and checks every value, the keys and the framing.
//   - (b) Python sends commands as ts_salobj does; a Go CSC acknowledges
//     them; Python checks ack, result, seqNum, identity, origin and cmdtype.
//   - (c) Python registers every schema as ts_salobj does and gets the id
//     the Go SDK registered; the text Go sent is byte-identical.
//   - (d) a Go Remote reads history (newest per SAL index) and live data
//     written by Python.
//   - (e) Python plays the ScriptQueue (py/scriptqueue.py) against the Go
//     SAL script examples/script: --schema, launch by file name and index,
//     configure, setGroupId, run, resume, stop, SIGTERM; every state event,
//     description, metadata, checkpoints, logMessage and the exit code.
//
// They run on the Example component, and on the Test component of ts_xml
// when TS_XML_DIR is set ((e) needs it: the Python ScriptQueue reads the
// Script component from ts_xml; the script commands Example:1). They skip unless LSST_KAFKA_BROKER_ADDR,
// LSST_SCHEMA_REGISTRY_URL and SALGO_PYTHON (a Python with
// py/requirements.txt installed) are set; the security tests skip unless
// the KAFKA_SASL_* / KAFKA_SSL_ADDR / KAFKA_TLS_DIR variables of
// scripts/kafka/kafka.sh (and SALGO_MTLS_ADDR / SALGO_MTLS_TLS_DIR for a
// broker started with KAFKA_MTLS=1) are. scripts/ci-integration.sh sets
// them all.
package interop
