// Package benchmarks holds the SDK's `go test -bench` suites. Each
// throughput figure is measured beside its baseline in the same run (the
// hamba/avro generic map path for the codec, raw franz-go for Kafka,
// aws-sdk-go-v2's own uploader for the Large File Annex) and
// reported with allocations and custom metrics; BENCHMARKS.md records the
// results with the commands that produced them.
//
// The suites run on the embedded broker by default and against a real one
// when the LSST_* variables are set. Topics of the real ts_xml (MTM1M3
// forceActuatorData, the largest MTCamera event) need TS_XML_DIR; without
// it those cases are skipped with the reason. The typed-record benchmarks
// of those topics (BenchmarkReadTyped, BenchmarkTypedDecode, ...) run in a
// scratch module that internal/benchkit generates with salgen from that
// ts_xml into the user's cache folder (salgo-bench/<hash>) and builds
// once per process, outside the timed part (seconds when the go command's
// cache is warm, under a minute when cold); nothing generated from the
// real ts_xml is committed. BenchmarkLFAUpload uploads
// 64 MiB unless SALGO_LFA_BENCH_SIZE says otherwise (1GiB in
// BENCHMARKS.md), to a store in a child process.
//
// The soak program (benchmarks/soak, not run by CI) keeps 1 kHz telemetry
// and 100 commands/s going for as long as asked and reports loss,
// duplicates, latency percentiles and memory over time.
package benchmarks
