// Command charts turns `go test -bench` output into SVG bar charts, one per
// metric, with the median of repeated runs, so BENCHMARKS.md can show
// throughput against its raw baseline and latency percentiles.
//
//	go test -run XXX -bench . -count 5 ./benchmarks/ > bench.txt
//	go run ./benchmarks/charts -in bench.txt -out docs/img
//
// Each bar chart holds the benchmarks whose name matches its pattern; a
// benchmark appears once with the median over its runs, followed by its
// baseline measured in the same benchmark (raw-<metric>) when it has one.
// latency-distribution.svg draws, for every benchmark reporting the
// latency percentiles (p10-µs ... max-µs), a box plot on a log scale.
package main
