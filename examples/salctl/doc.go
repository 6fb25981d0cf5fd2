// Command salctl is a command-line tool for SAL over Kafka, in the spirit
// of `ros2 topic` and EPICS's pvget/pvmonitor/pvinfo:
//
//	go run ./examples/salctl components                      # the SAL components defined
//	go run ./examples/salctl topics Example                  # topics, fields, units, array lengths
//	go run ./examples/salctl schema Example evt_scalars      # the Avro schema text registered
//	go run ./examples/salctl echo Example.scalars            # print records, decoded with the writer's schema
//	go run ./examples/salctl pub Example evt_scalars '{"int0": 3}'
//	go run ./examples/salctl hz Example.scalars              # publication rate, once a second
//	go run ./examples/salctl bw Example.scalars              # bandwidth, once a second
//	go run ./examples/salctl top Example                     # busiest topics: rate, bandwidth, latency, drops
//	go run ./examples/salctl command Example:1 start         # send a command, print each ack
//	go run ./examples/salctl state Example:1 ENABLED         # show or drive the summary state
//	go run ./examples/salctl history Example evt_scalars     # newest sample per SAL index
//	go run ./examples/salctl csc Example:1                   # a CSC that accepts every command
//
// Definitions come from TS_XML_DIR, or the SDK's embedded Example
// component. echo, hz and bw need no definitions at all, top only the
// component's name: they read topics by name with the SDK's Tap
// (sal.Bus.Tap), which decodes each record with its writer's
// schema, fetched from the registry by the id in its header (the
// schema-unaware consumer). top reads every topic of the component that
// exists (sal.Bus.ExistingTopics) with one Tap, and looks for new
// ones every 10 s.
//
// With no LSST_KAFKA_BROKER_ADDR, verbs that only make sense with another
// process on the bus (echo, hz, bw, top, command, state, history) say so and
// run on an in-process bus with a built-in peer: a writer of random
// records, or a CSC that accepts every command.
package main
