// Command write writes generated, valid records of one SAL topic as fast as
// the broker acknowledges them (WriteAsync, pipelined) and ends with one
// summary line in the style of Kafka's kafka-producer-perf-test:
//
//	go run ./examples/write [-n COUNT] [-index N] [-acks 0|1|all] COMPONENT TOPIC
//	go run ./examples/write -n 1000 Example scalars
//	1000 records sent, 31250.0 records/sec, 2.10 ms avg latency, 4.02 ms max latency, 2.05 ms 50th, 3.71 ms 95th, 3.95 ms 99th, 4.02 ms 99.9th.
//
// TOPIC is the SAL name (logevent_scalars, command_setScalars, scalars) or
// the salobj attribute name (evt_scalars, cmd_setScalars, tel_scalars).
// Records come from validate.Validator.Random; the SDK validates each one
// it writes. Latency is the time from the write call to the broker's
// acknowledgement (topics.WriteResult.Latency); the percentiles are taken
// as kafka-producer-perf-test takes them, the element at floor(N*p) of the
// sorted latencies.
//
// With no LSST_KAFKA_BROKER_ADDR it writes to an in-process broker that no
// other process sees (run examples/localkafka to share one); with the
// LSST_* variables set it writes to that bus.
package main
