// Command write writes generated, valid records of one SAL topic and ends
// with one summary line in the style of Kafka's kafka-producer-perf-test:
//
//	go run ./examples/write COMPONENT TOPIC [-index N] [-n COUNT] [-rate HZ] [-acks 0|1|all] [-validation full] [-json]
//	go run ./examples/write Example scalars -n 1000
//	1000 records sent, 31250.0 records/sec (5.13 MB/sec), 2.10 ms avg latency, 4.02 ms max latency, 2.05 ms 50th, 3.71 ms 95th, 3.95 ms 99th, 4.02 ms 99.9th.
//
// TOPIC is the SAL name (logevent_scalars, command_setScalars, scalars,
// ackcmd) or the salobj attribute name (evt_scalars, cmd_setScalars,
// tel_scalars). Records come from validate.Validator.Random. Latency is the
// time from the write call to the broker's acknowledgement
// (topics.WriteResult.Latency); records are pipelined with WriteAsync
// unless -rate paces them. MB/sec counts the framed Kafka record values (5
// header bytes plus the Avro body, 1 MB = 2^20 bytes). -n 0 only creates the
// topic and registers its schema.
//
// The SDK validates every record it writes: there is no unvalidated write
// path, so -validation accepts only "full" and rejects "none" rather than
// pretend to skip it.
//
// With no LSST_KAFKA_BROKER_ADDR it writes to an in-process broker that no
// other process sees (run examples/localkafka to share one); with the LSST_*
// variables set it writes to that bus.
package main
