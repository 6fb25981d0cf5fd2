// Command read reads one or more topics of a SAL component, as the Kafka
// prototype's read_kafka.py did: it first reports the historical sample per
// SAL index (late-joiner history, events only), then prints each new
// record, or with -t times the run.
//
//	go run ./examples/read [-n COUNT] [-t] COMPONENT TOPIC...
//	go run ./examples/read -n 5 Example evt_scalars tel_scalars
//	go run ./examples/read -n 1000 -t Example scalars
//	1000 records read in 0.499 s, 2002.0 records/sec; latency ms: mean 0.412, stdev 0.180, min 0.150, max 2.010, p50 0.380, p99 1.200; 0 records lost (seqNum gaps).
//
// Latency is the time the record is taken from the reader minus its
// private_sndStamp, both TAI seconds (topics.TAI); lost records are counted
// from private_seqNum gaps per writer (topics.ReaderStats.Lost).
//
// With no LSST_KAFKA_BROKER_ADDR no other process can write to this
// program's in-process bus, so it says so and starts a built-in writer of
// random records for the topics it reads (one historical sample for SAL
// indexes 1 and 2 first); with the LSST_* variables set it reads that bus.
package main
