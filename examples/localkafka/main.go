package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/lsst-sal/salgo/examples/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

const usageText = `usage: localkafka [flags]

Starts an in-process Kafka broker and schema registry on loopback, prints
  export LSST_KAFKA_BROKER_ADDR=...
  export LSST_SCHEMA_REGISTRY_URL=...
  export LSST_TOPIC_SUBNAME=sal
and runs until interrupted.

` + cli.ExitStatusHelp + `
flags:
`

func main() {
	cli.Main("localkafka", true, func(ctx context.Context, args []string) error {
		return run(ctx, args, os.Stdout, os.Stderr)
	})
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("localkafka", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText); fs.PrintDefaults() }
	envFile := fs.String("env-file", "", "also write the export lines to this file (to source from other shells)")
	kafkaPort := fs.Int("kafka-port", 0, "loopback port of the Kafka broker (0: a free port)")
	registryPort := fs.Int("registry-port", 0, "loopback port of the schema registry (0: a free port)")
	dataDir := fs.String("data", "", "keep the bus (topics, records, schemas) in this folder across restarts; with fixed ports, clients carry on after a restart (default: in memory, a restart is a new, empty bus)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	version := cli.VersionFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return cli.UsageError{Msg: err.Error()}
	}
	if *version {
		return cli.PrintVersion(stdout, "localkafka")
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q", fs.Args())
	}
	for _, p := range []struct {
		flag string
		port int
	}{{"kafka-port", *kafkaPort}, {"registry-port", *registryPort}} {
		if p.port < 0 || p.port > 65535 {
			return cli.Usagef("-%s %d: want a port from 1 to 65535, or 0 for a free one", p.flag, p.port)
		}
	}
	if *kafkaPort != 0 && *kafkaPort == *registryPort {
		return cli.Usagef("-kafka-port and -registry-port are both %d: they need a port each", *kafkaPort)
	}
	log := cli.Logger(stderr, *verbose)

	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// WithEmbedded: a broker of our own even when LSST_KAFKA_BROKER_ADDR
	// is set in this shell. The definitions do not matter to a broker.
	bus, err := sal.Connect(cctx, sal.WithEmbedded(), sal.WithEmbeddedPorts(*kafkaPort, *registryPort),
		sal.WithEmbeddedDataDir(*dataDir), sal.WithLogger(log), sal.WithDefinitions(salxml.Embedded()))
	if err != nil {
		return err
	}
	defer bus.Close()
	cfg := bus.Config()
	// The subname too: a program on a broker needs one (as with ts_salobj),
	// and this bus's is the in-process default.
	lines := fmt.Sprintf("export %s=%s\nexport %s=%s\nexport %s=%s\n",
		topics.EnvBroker, strings.Join(cfg.Brokers, ","), topics.EnvRegistry, cfg.RegistryURL, topics.EnvSubname, cfg.Subname)
	if *envFile != "" {
		// Write then rename, so a reader polling for the file never sees half of it.
		tmp := *envFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(lines), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, *envFile); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(stdout, lines); err != nil {
		return err
	}
	kept := "in memory: a restart is a new, empty bus"
	if *dataDir != "" {
		kept = "kept in " + *dataDir
	}
	fmt.Fprintf(stderr, "localkafka: Kafka broker on %s and schema registry on %s (%s); set the variables above in other shells to share this bus; Ctrl-C to stop\n",
		strings.Join(cfg.Brokers, ","), cfg.RegistryURL, kept)
	<-ctx.Done()
	fmt.Fprintln(stderr, "localkafka: stopping")
	return nil
}
