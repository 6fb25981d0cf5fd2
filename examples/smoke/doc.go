// Package smoke runs every example as a smoke test: TestMain builds them
// with `go build`, and each test runs one (or several, sharing a bus
// through localkafka) with small counts and checks what it prints.
//
// By default everything runs on the in-process bus: the LSST_* and
// TS_XML_DIR variables are removed from the examples' environment. When
// LSST_KAFKA_BROKER_ADDR and LSST_SCHEMA_REGISTRY_URL are set,
// TestRealBroker also runs the examples against that bus.
package smoke
