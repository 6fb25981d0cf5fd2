// Command salctl is a command-line tool for SAL over Kafka, in the spirit
// of kcat, `ros2 topic` and EPICS's pvget/pvmonitor/pvinfo, with a CSC
// commander like ts_salobj's. It is a module of its own, so that its line
// editor stays out of the SDK's dependencies; from a clone of the SDK,
// `go install -C cmd/salctl .` installs it and `go run .` in cmd/salctl
// runs it:
//
//	salctl components                      # the SAL components defined
//	salctl topics Example                  # topics, fields, units, array lengths
//	salctl schema Example evt_scalars      # the Avro schema text registered
//	salctl list                            # SAL topics on the bus, with record counts
//	salctl echo Example.scalars            # print records, decoded with the writer's schema
//	salctl pub Example evt_scalars '{"int0": 3}'
//	salctl hz Example.scalars              # publication rate, once a second
//	salctl bw Example.scalars              # bandwidth, once a second
//	salctl top Example                     # busiest topics: rate, bandwidth, latency, drops
//	salctl command Example:1 start         # send a command, print each ack
//	salctl command Example:1 setScalars int0=3 double0=1.5
//	salctl commander Example:1             # an interactive shell for one CSC
//	salctl state Example:1 ENABLED         # show or drive the summary state
//	salctl history Example evt_scalars     # newest sample per SAL index
//	salctl csc Example:1                   # a CSC that accepts every command
//	salctl check-schema Example            # registered schemas vs the definitions
//
// `salctl help VERB` and `salctl VERB -h` print the same help; `salctl
// --version` the version. Every verb exits 0 on success, 1 on a failure or
// timeout, 2 on a usage mistake, 3 when the CSC addressed is not running
// (no heartbeat within 3 s: state, command), 130 when interrupted by SIGINT
// and 143 by SIGTERM (internal/cli.Main).
//
// Definitions come from TS_XML_DIR, or the SDK's embedded Example
// component. echo, hz, bw and list need no definitions at all, top only the
// component's name: they read topics by name with the SDK's Tap
// (sal.Bus.Tap), which decodes each record with its writer's schema,
// fetched from the registry by the id in its header (the schema-unaware
// consumer), and list the topics that exist (sal.Bus.ExistingTopics,
// sal.Bus.Offsets). Enumerated values are printed with their names: the
// generic summaryState and ack codes, and the integer fields the XML
// enumerates (internal/cli.Enums).
//
// The commander reads lines with editing and tab completion on a terminal
// (internal/lineedit), where each command runs as soon as it is
// typed, on a goroutine of its own, its acks tagged with its name and
// seqNum; it reads plain lines from a pipe, run in turn, for scripts.
//
// With no LSST_KAFKA_BROKER_ADDR, verbs that only make sense with another
// process on the bus (echo, hz, bw, top, list, command, commander, state,
// history) say so and run on an in-process bus with a built-in peer: a
// writer of random records (enumerated fields from their enumerations), or
// a CSC that accepts every command.
package main
