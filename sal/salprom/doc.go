// Package salprom exports the SDK's metrics to Prometheus: the counters
// and gauges of every reader and writer (read at scrape time, so they cost
// nothing on the hot path), histograms of write-acknowledgement latency,
// end-to-end latency and command round trips by outcome, and franz-go's own
// client metrics through its kprom plugin.
//
//	exp := salprom.New(prometheus.DefaultRegisterer)
//	bus, err := sal.Connect(ctx, exp.Option())
//	...
//	http.Handle("/metrics", promhttp.Handler())
//
// The metrics, all labelled by component, index and topic (SAL name):
//
//	salgo_records_written_total        acknowledged by the broker
//	salgo_write_failures_total         rejected by validation or Kafka
//	salgo_records_received_total       fetched by a reader
//	salgo_records_delivered_total      queued or passed to a callback
//	salgo_records_filtered_total       for another SAL index
//	salgo_records_overflow_total       dropped: queue full
//	salgo_records_lost_total           missing by private_seqNum gaps
//	salgo_records_out_of_order_total   dropped: older than the last
//	salgo_records_duplicate_total      dropped: the same writer's seqNum again
//	salgo_records_undecodable_total    bad framing, schema or Avro
//	salgo_records_violations_total     delivered, but out of a bound
//	salgo_schema_retries_total         writer schema lookups tried again
//	salgo_queue_depth                  records waiting in a reader's queue
//	salgo_records_held                 records waiting for a writer
//	                                   schema lookup
//	salgo_write_ack_seconds            histogram: write call to broker ack
//	salgo_latency_seconds              histogram: receive minus send stamp
//	salgo_command_seconds              histogram: command round trip, with
//	                                   labels command and outcome
//	                                   (CMD_COMPLETE, CMD_FAILED, ...,
//	                                   timeout, closed)
//	salgo_kafka_*                      kprom's client metrics, with a
//	                                   client label
//
// A Controller's Stats.Overflow (commands dropped from a full command
// queue) is the sum of salgo_records_overflow_total over its command_*
// topics.
//
// Series of the same component, index and topic from several objects of
// one process (two Remotes of one component, say) are summed.
package salprom
