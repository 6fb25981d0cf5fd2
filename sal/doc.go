// Package sal is what applications import to take part in the Rubin
// Observatory's SAL control system over Kafka, as Python's ts_salobj does:
// Remotes command components and read their events and telemetry,
// Controllers and CSCs implement components, and both are wire-compatible
// with ts_salobj 8.
//
// Configuration comes from the same LSST_* environment variables as
// ts_salobj (see ConfigFromEnv), overridden by options in code. With
// no broker configured (LSST_KAFKA_BROKER_ADDR unset) the SDK starts an
// in-process Kafka broker and schema registry, so programs and tests run
// with nothing installed. The SAL interface definitions come from
// TS_XML_DIR, or the SDK's embedded Example and Script components when it
// is unset.
//
// # Remotes
//
// A Remote of one component instance, on the process-wide bus:
//
//	r, err := sal.NewRemote("MTM1M3", 0, remote.WithExclude("forceActuatorData"))
//	if err != nil { ... }
//	defer r.Close()
//	ack, err := r.Command(ctx, "enable", nil, remote.WithTimeout(10*time.Second)) // waits for the final ack
//	state := r.MustEvent("summaryState").Get()                                 // late-joiner history
//	ev, err := r.Event("evt_detailedState")                                    // any salctl name; an error names close matches
//
// Each setting is said one way, with its default in its doc: the bus's
// options are sal.WithX (WithBrokers, WithAcks, ...) for Connect and
// Default; a Remote's are declared in package remote (remote.WithReadOnly,
// remote.WithInclude, ...), with the commands' (remote.WithTimeout,
// remote.WithNextAck); a Controller's and a CSC's in package controller
// (controller.WithAllowMissing, controller.WithInitialState,
// controller.WithHooks, ...).
//
// The types live where go doc shows their methods: readers, writers and
// the bus's Domain in package topics, Remote and Future in remote,
// Controller, CSC, Command and Script in controller. sal names each once
// (sal.Reader is topics.Reader), with a doc line saying where.
//
// Records are map[string]any with one Go type per SAL type (int32 for
// int, float64 for double, []float32 for float arrays, ...); see package
// validate. A failed command returns a *sal.AckError, one that saw no
// final ack in time a *sal.TimeoutError. A reader that is handed back
// the records it delivered (Reader.Recycle) decodes later ones into them,
// which makes decoding large telemetry about three times cheaper.
//
// # Controllers and CSCs
//
//	csc, err := sal.NewCSC("Example", 1, controller.WithEnabledCommands("setScalars"))
//	csc.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error {
//		return nil // CMD_COMPLETE; an error acks CMD_FAILED with its text
//	})
//	err = csc.Start(ctx)
//
// The generic commands (start, enable, disable, standby, exitControl,
// setLogLevel) are the CSC's own; code acts on them through
// controller.WithHooks.
// Hooks.Close, ts_salobj's close_tasks, runs once however the CSC ends.
// RunCSC runs a CSC program as amain does: a SIGTERM at any moment takes
// the CSC to OFFLINE, runs the close hook and exits 0 (see the README's
// "Deploying a CSC").
//
// # SAL scripts
//
// A SAL script is a program the ScriptQueue runs once: ScriptSpec declares
// its description, configuration schema and Setup, Configure, SetMetadata, Run
// and Cleanup functions; RunScript gives it ts_salobj's BaseScript command
// line, states, commands, events and exit codes:
//
//	os.Exit(sal.RunScript(sal.ScriptSpec{Name: "Slew", Schema: schema,
//		Run: func(ctx context.Context, s *sal.Script) error {
//			return s.Checkpoint(ctx, "start") // pauses or stops here if asked
//		}}))
//
// # Buses
//
// Connect makes a bus of its own (one Kafka producer and registry client,
// with options such as WithBrokers, WithAcks or WithMetrics); NewRemote,
// NewController and NewCSC use the process-wide bus of Default. Closing a
// bus closes every CSC, script, Controller and Remote made on it, in that
// order (commands in flight end with ErrClosed); every Close is safe to
// call twice.
//
// # Large files
//
// Files a CSC or script makes go to the Large File Annex, S3, with package
// lfa: lfa.MakeBucketName and lfa.MakeKey name them as ts_salobj does,
// lfa.Open a bucket (S3_ENDPOINT_URL, or an in-process store), and
// lfa.Save uploads a file and then writes the largeFileObjectAvailable
// event with a CSC's writer:
//
//	saved, err := lfa.Save(ctx, bucket, csc.MustEvent(lfa.EventName), key, r, lfa.Announcement{Generator: "fiberSpecBlue"})
//
// It is a package of its own so that programs without files do not link
// an S3 client.
//
// # Observability
//
// Every reader and writer counts what it did (Bus.Stats); WithMetrics
// hands latencies and those counters to an exporter, such as the
// Prometheus adapter sal/salprom. Logs go to the WithLogger slog.Logger,
// with repeated problems rate-limited. CheckSchemas compares the schemas
// the definitions give with those registered, before a ts_xml upgrade.
package sal
