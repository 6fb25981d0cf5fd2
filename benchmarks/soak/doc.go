// Command soak runs the SDK for a long time under a steady load and
// reports loss, duplicates, latency and memory as it goes. It is not part
// of CI (its smoke test, a few seconds long, is).
//
//	go run ./benchmarks/soak -duration 10m -xml /path/to/ts_xml
//
// In one process, on the embedded broker (or the one the LSST_* variables
// name), it runs:
//
//   - a writer of MTM1M3 forceActuatorData at 1 kHz (-rate), paced by a
//     ticker that keeps the average rate: when it falls behind it catches
//     up with a burst and counts the late ticks. Without ts_xml (-xml or
//     TS_XML_DIR) it writes the Example component's largest telemetry
//     topic instead;
//   - a reader of that topic checking private_seqNum for loss and
//     duplicates, and the end-to-end latency (receive time minus the local
//     time just before the write call);
//   - a CSC (Test:1, or Example:1 without ts_xml) taking 100 commands/s
//     (-cmd-rate) from a Remote, each a full round trip to the final ack;
//     their latency percentiles and failures.
//
// Every -every (30 s) it prints one line: elapsed time, records written
// and received, lost, duplicated, latency p50/p99/max of the interval,
// commands sent, failed and their p50/p99, the live heap (after a GC),
// goroutines and RSS. At the end it prints a summary and exits 1 if a
// record was lost or duplicated, a write or command failed, or the live
// heap at the end is more than -max-growth times the one at the first
// report after -warmup.
package main
