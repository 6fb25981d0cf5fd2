package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

const usageText = `usage: localkafka [flags]

Starts an in-process Kafka broker and schema registry on loopback, prints
  export LSST_KAFKA_BROKER_ADDR=...
  export LSST_SCHEMA_REGISTRY_URL=...
  export LSST_TOPIC_SUBNAME=sal
and runs until SIGINT (Ctrl-C, exit status 130) or SIGTERM (143). A usage
mistake exits 2, a failure 1.

flags:
`

func main() {
	// The signal that stops the bus sets the exit status, as a shell
	// reports it: 128 + the signal's number.
	sigs, got := make(chan os.Signal, 1), make(chan syscall.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { s := <-sigs; got <- s.(syscall.Signal); cancel() }()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	status := 0
	select {
	case s := <-got:
		status = 128 + int(s)
	default:
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localkafka:", err)
		status = max(status, 1)
	}
	os.Exit(status)
}

// usage prints a usage mistake and exits with status 2.
func usage(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "localkafka: "+format+"\nrun 'localkafka -h' for usage\n", args...)
	os.Exit(2)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("localkafka", flag.ExitOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usageText); fs.PrintDefaults() }
	envFile := fs.String("env-file", "", "also write the export lines to this file (to source from other shells)")
	kafkaPort := fs.Int("kafka-port", 0, "loopback port of the Kafka broker (0: a free port)")
	registryPort := fs.Int("registry-port", 0, "loopback port of the schema registry (0: a free port)")
	dataDir := fs.String("data", "", "keep the bus (topics, records, schemas) in this folder across restarts; with fixed ports, clients carry on after a restart (default: in memory, a restart is a new, empty bus)")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	_ = fs.Parse(args) // ExitOnError: a bad flag exits with status 2
	if fs.NArg() > 0 {
		usage("unexpected arguments %q", fs.Args())
	}
	for _, p := range []struct {
		flag string
		port int
	}{{"kafka-port", *kafkaPort}, {"registry-port", *registryPort}} {
		if p.port < 0 || p.port > 65535 {
			usage("-%s %d: want a port from 1 to 65535, or 0 for a free one", p.flag, p.port)
		}
	}
	if *kafkaPort != 0 && *kafkaPort == *registryPort {
		usage("-kafka-port and -registry-port are both %d: they need a port each", *kafkaPort)
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

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
