// Command quickstart is a tour of the SDK in one process: it starts a CSC
// of the Example component, commands it from a Remote through
// STANDBY -> DISABLED -> ENABLED, sends setScalars, setArrays and a wait
// command with an in-progress acknowledgement, shows the events and
// telemetry that come back, the late-joiner history a second Remote sees,
// and a command refused in the wrong state.
//
//	go run ./examples/quickstart
//
// With no LSST_KAFKA_BROKER_ADDR it runs on an in-process Kafka broker and
// schema registry; with the LSST_* variables set it runs on that bus.
package main
