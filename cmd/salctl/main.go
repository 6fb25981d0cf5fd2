package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

type env struct {
	ctx    context.Context
	stdin  io.Reader // the commander's input (os.Stdin); nil reads nothing
	stdout io.Writer
	stderr io.Writer
}

type verb struct {
	name, args, help string
	// more is the rest of the verb's help: what it prints, how it ends.
	more string
	run  func(e *env, args []string) error
}

var verbs []verb

func init() {
	verbs = []verb{
		{"components", "", "list the SAL components defined", "", cmdComponents},
		{"topics", "COMPONENT", "list a component's topics and fields, with units, array lengths and descriptions", "", cmdTopics},
		{"schema", "COMPONENT TOPIC", "print a topic's Avro schema text, as ts_salobj registers it", "", cmdSchema},
		{"list", "[COMPONENT...]", "list the SAL topics that exist on the bus, with their partitions and record counts", listHelp, cmdList},
		{"echo", "TOPIC...", "print the records of Kafka topics (lsst.sal.C.T or C.T), decoded with their writers' schemas", echoHelp, cmdEcho},
		{"pub", "COMPONENT TOPIC [JSON]", "write one record (fields as a JSON object; missing fields take their defaults)", pubHelp, cmdPub},
		{"hz", "TOPIC...", "print the publication rate of topics once a second", "-timeout 0 (the default) means no limit; it must not be negative.\n" + listenExitHelp, cmdHz},
		{"bw", "TOPIC...", "print the bandwidth of topics once a second", "-timeout 0 (the default) means no limit; it must not be negative.\n" + listenExitHelp, cmdBw},
		{"top", "COMPONENT[:INDEX]", "a live view of a component's busiest topics: rate, bandwidth, latency, drops", "", cmdTop},
		{"command", "COMPONENT[:INDEX] NAME [ARGS]", "send a command and print each acknowledgement as it comes", commandHelp, cmdCommand},
		{"commander", "COMPONENT[:INDEX]", "an interactive shell that commands a CSC and prints its events, as ts_salobj's CSC commander", commanderHelp, cmdCommander},
		{"state", "COMPONENT[:INDEX] [TARGET]", "show the summary state and liveness, or drive the CSC to TARGET through the allowed transitions", stateHelp, cmdState},
		{"history", "COMPONENT TOPIC", "print the newest sample of a topic per SAL index", historyHelp, cmdHistory},
		{"csc", "COMPONENT[:INDEX]", "run a CSC that accepts every command (a peer for command and state) until interrupted", cscHelp, cmdCSC},
		{"lfa", "ls COMPONENT[:INDEX] | get KEY|URL", "list a component's files in the Large File Annex (S3), or fetch one", lfaHelp, cmdLFA},
		{"check-schema", "[COMPONENT...]", "compare the definitions' schemas with the registry's; exit 1 if one would break readers", checkSchemaHelp, cmdCheckSchema},
	}
}

func main() {
	cli.Main("salctl", false, func(ctx context.Context, args []string) error {
		return run(&env{ctx: ctx, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, args)
	})
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: salctl VERB [ARGS] [flags]   (salctl help VERB, or salctl VERB -h, for a verb's flags)")
	fmt.Fprintln(w, "       salctl --version")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, v := range verbs {
		fmt.Fprintf(tw, "  %s %s\t%s\n", v.name, v.args, v.help)
	}
	tw.Flush()
	fmt.Fprint(w, "\n"+generalHelp+"\n"+exitStatusTable)
}

// exitStatusTable is the exit statuses of every verb, in salctl's usage.
const exitStatusTable = `Exit status, the same for every verb:
  0    success: command CMD_COMPLETE; state shown with every CSC alive, or
       TARGET reached; echo, hz, bw: the -n records seen, or without -n at
       least one by -timeout; history: data found
  1    failure or timeout: a failed or missing final ack (command, state
       TARGET); no summaryState within -timeout (state); echo, hz, bw:
       -timeout before the -n records, or before any; history: no data;
       check-schema: a change that would break readers
  2    usage error
  3    the CSC addressed is not running, from its heartbeat (none within
       3 s, 15 s for a SAL script): state, command (command -wait sends
       anyway)
  130  interrupted by SIGINT (Ctrl-C); 143 terminated by SIGTERM. A second
       signal ends the program at once.
`

// exitStatusHelp is cli.ExitStatusHelp with salctl's status 3.
const exitStatusHelp = `Exit status: 0 success; 1 failure or timeout; 2 usage error; 3 the CSC
addressed is not running (no heartbeat within 3 s: state, command); 130
interrupted by SIGINT (Ctrl-C); 143 terminated by SIGTERM. A second signal
ends the program at once.
`

const historyHelp = `Events: the SDK's late-joiner history, as a Remote sees it. Telemetry and
commands (which ts_salobj reads no history of): the topic read back with Tap.
Each sample is printed as JSON, then its enumerated fields with their names
(summaryState 2 (ENABLED)). On the in-process bus a built-in writer first
writes two samples per SAL index, with values of their enumerations in the
enumerated fields. The exit status is 1 when there is no historical data.`

const generalHelp = `TOPIC is a SAL name (logevent_x, command_x, a telemetry name, ackcmd), an
attribute name (evt_x, cmd_x, tel_x) or a bare event or command name
(summaryState). Enumerated values are printed with their names: summaryState
2 (ENABLED), ack 303 (CMD_COMPLETE), and the integer fields that the XML
enumerates.

The bus comes from LSST_KAFKA_BROKER_ADDR and the other LSST_* variables;
without it, an in-process one, on which the verbs that need another party
bring their own (a writer of random records, or a CSC that accepts every
command) and say so. The definitions come from TS_XML_DIR, or the SDK's
embedded Example component.
`

func run(e *env, args []string) error {
	if len(args) == 0 {
		usage(e.stderr)
		return cli.UsageError{Msg: "no verb given"}
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		usage(e.stdout)
		return nil
	case "-version", "--version", "version":
		return cli.PrintVersion(e.stdout, "salctl")
	case "help":
		if len(args) == 1 {
			usage(e.stdout)
			return nil
		}
		if len(args) > 2 {
			return cli.Usagef("help takes one VERB, got %q", args[1:])
		}
		// The verb's own -h: the same text by construction.
		name, args = args[1], []string{args[1], "-h"}
	}
	v, err := findVerb(name)
	if err != nil {
		return err
	}
	err = v.run(e, args[1:])
	var ue cli.UsageError
	if errors.As(err, &ue) {
		return cli.Usagef("%s: %s\n(salctl help %s shows its usage)", v.name, ue.Msg, v.name)
	}
	return err
}

func findVerb(name string) (*verb, error) {
	var names []string
	for i := range verbs {
		if verbs[i].name == name {
			return &verbs[i], nil
		}
		names = append(names, verbs[i].name)
	}
	if c := salxml.Closest(name, names); len(c) > 0 {
		return nil, cli.Usagef("unknown verb %q (did you mean %s?)", name, strings.Join(c, ", "))
	}
	return nil, cli.Usagef("unknown verb %q: salctl help lists the verbs", name)
}

// flags is a verb's flag set. It prints nothing itself: parseFlags prints
// the verb's usage on stdout for -h, and returns other mistakes as usage
// errors.
func flags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet("salctl "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// verbUsage prints the help of a verb: `salctl help VERB` and `salctl VERB
// -h` both print it, on stdout.
func verbUsage(w io.Writer, fs *flag.FlagSet) {
	v, err := findVerb(strings.TrimPrefix(fs.Name(), "salctl "))
	if err != nil {
		return
	}
	fmt.Fprintf(w, "usage: salctl %s %s [flags]\n\n%s.\n", v.name, v.args, capitalize(v.help))
	if v.more != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(v.more, "\n"))
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	fmt.Fprint(w, "\n"+exitStatusHelp)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// parseFlags parses a verb's flags, which may come before, between or
// after its positional arguments, and returns the positional ones. -h
// prints the verb's usage and returns flag.ErrHelp (exit status 0).
func parseFlags(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	pos, err := cli.ParseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		verbUsage(e.stdout, fs)
	}
	return pos, err
}

// parseArgs parses a verb's flags, checks its positional arguments and
// loads the definitions.
func parseArgs(e *env, fs *flag.FlagSet, args []string, lo, hi int, what string) ([]string, *salxml.Definitions, error) {
	pos, err := parseFlags(e, fs, args)
	if err != nil {
		return nil, nil, err
	}
	if err := wantArgs(pos, lo, hi, what); err != nil {
		return nil, nil, err
	}
	defs, err := loadDefs()
	return pos, defs, err
}

// positiveTimeout refuses a -timeout that is not > 0.
func positiveTimeout(d time.Duration) error {
	if d <= 0 {
		return cli.Usagef("-timeout %s: want a duration > 0, e.g. 30s", d)
	}
	return nil
}

// noLimitTimeout refuses a negative -timeout (0 is no limit).
func noLimitTimeout(d time.Duration) error {
	if d < 0 {
		return cli.Usagef("-timeout %s: want a duration >= 0 (0: no limit)", d)
	}
	return nil
}

// requireIndex refuses a bare name for an indexed component.
func requireIndex(c *salxml.Component, hasIdx bool) error {
	if c.Indexed && !hasIdx {
		return cli.Usagef("%s is indexed: give COMPONENT:INDEX, e.g. %s:1", c.Name, c.Name)
	}
	return nil
}

func wantArgs(pos []string, lo, hi int, what string) error {
	if len(pos) < lo || (hi >= 0 && len(pos) > hi) {
		return cli.Usagef("want %s, got %d arguments %q", what, len(pos), pos)
	}
	return nil
}

// ---------------------------------------------------------------------
// Definitions.

func loadDefs() (*salxml.Definitions, error) { return salxml.FromEnv() }

// findComponent returns the named component, or a usage error listing
// the close matches.
func findComponent(defs *salxml.Definitions, name string) (*salxml.Component, error) {
	return cli.FindComponent(defs, name, " (salctl components lists them; set TS_XML_DIR for ts_xml's)")
}

// findTopic resolves a SAL name or an attribute name, or returns a usage
// error listing the close matches.
func findTopic(c *salxml.Component, name string) (*salxml.Topic, error) {
	return cli.FindTopic(c, name, fmt.Sprintf(" (salctl topics %s lists its %d topics)", c.Name, len(c.Topics)))
}

// findComponentTopic resolves the COMPONENT TOPIC arguments of a verb.
func findComponentTopic(defs *salxml.Definitions, comp, topic string) (*salxml.Component, *salxml.Topic, error) {
	c, err := findComponent(defs, comp)
	if err != nil {
		return nil, nil, err
	}
	t, err := findTopic(c, topic)
	if err != nil {
		return nil, nil, err
	}
	return c, t, nil
}

// salName turns an attribute name into a SAL name, without definitions.
func salName(name string) string {
	switch {
	case strings.HasPrefix(name, "evt_"):
		return "logevent_" + name[4:]
	case strings.HasPrefix(name, "cmd_"):
		return "command_" + name[4:]
	case strings.HasPrefix(name, "tel_"):
		return name[4:]
	case name == "ack_ackcmd":
		return "ackcmd"
	}
	return name
}

// parseInstance parses COMPONENT[:INDEX].
func parseInstance(defs *salxml.Definitions, s string) (*salxml.Component, int, bool, error) {
	name, idxs, hasIdx := strings.Cut(s, ":")
	comp, err := findComponent(defs, name)
	if err != nil {
		return nil, 0, false, err
	}
	idx := 0
	if hasIdx {
		if idx, err = strconv.Atoi(idxs); err != nil || idx < 0 {
			return nil, 0, false, cli.Usagef("%q: the SAL index must be a number >= 0", s)
		}
	}
	if err := comp.CheckIndex(idx); err != nil {
		return nil, 0, false, cli.Usagef("%s: %v", s, err)
	}
	return comp, idx, hasIdx, nil
}

// ---------------------------------------------------------------------
// The bus.

// connect connects to the bus of the LSST_* variables, or starts an
// in-process one; peer says what this verb does about the in-process case
// ("" when it needs nobody else).
func connect(e *env, verb string, defs *salxml.Definitions, verbose bool, peer string, opts ...sal.Option) (*sal.Bus, error) {
	// The SDK's warnings as salctl prints its other messages.
	log := slog.New(cli.PlainHandler(e.stderr, "salctl "+verb, verbose))
	bus, err := cli.Connect(e.ctx, defs, log, opts...)
	if err != nil {
		return nil, err
	}
	if bus.Embedded() {
		msg := fmt.Sprintf("salctl %s: no broker configured (%s unset): running on an in-process bus that no other process can reach", verb, sal.EnvBroker)
		if peer != "" {
			msg += "; " + peer
		}
		fmt.Fprintln(e.stderr, msg+" (run examples/localkafka to share a bus)")
	}
	return bus, nil
}

// ---------------------------------------------------------------------
// components, topics, schema: definitions only, no bus.

func cmdComponents(e *env, args []string) error {
	fs := flags(e, "components")
	asJSON := fs.Bool("json", false, "print JSON lines")
	_, defs, err := parseArgs(e, fs, args, 0, 0, "no arguments")
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintf(tw, "COMPONENT\tINDEXED\tTOPICS\tDESCRIPTION\n")
	}
	for _, n := range defs.Names() {
		c, err := defs.Component(n)
		if err != nil {
			return err
		}
		if *asJSON {
			_ = json.NewEncoder(e.stdout).Encode(map[string]any{
				"name": c.Name, "indexed": c.Indexed, "index_enumeration": c.IndexEnumeration,
				"topics": len(c.Topics), "description": c.Description,
			})
			continue
		}
		idx := "no"
		if c.Indexed {
			idx = c.IndexEnumeration
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", c.Name, idx, len(c.Topics), oneLine(c.Description, 80))
	}
	if !*asJSON {
		tw.Flush()
		fmt.Fprintf(e.stdout, "%d components from %s\n", len(defs.Names()), defs.Dir)
	}
	return nil
}

func cmdTopics(e *env, args []string) error {
	fs := flags(e, "topics")
	asJSON := fs.Bool("json", false, "print one JSON object per topic")
	private := fs.Bool("private", false, "include the private fields (salIndex, private_*)")
	kind := fs.String("kind", "", "only topics of this kind: command, event, telemetry or ackcmd")
	pos, defs, err := parseArgs(e, fs, args, 1, 1, "COMPONENT")
	if err != nil {
		return err
	}
	c, err := findComponent(defs, pos[0])
	if err != nil {
		return err
	}
	kinds := []string{"command", "event", "telemetry", "ackcmd"}
	if *kind != "" && !slices.Contains(kinds, *kind) {
		return cli.Usagef("-kind %q: want one of %s", *kind, strings.Join(kinds, ", "))
	}
	if !*asJSON {
		idx := "not indexed"
		if c.Indexed {
			idx = "indexed (" + c.IndexEnumeration + ")"
		}
		fmt.Fprintf(e.stdout, "%s: %s; %s; %d topics\n", c.Name, oneLine(c.Description, 100), idx, len(c.Topics))
	}
	for _, t := range c.Topics {
		if *kind != "" && t.Kind.String() != *kind {
			continue
		}
		fields := t.UserFields()
		if *private {
			fields = t.Fields
		}
		if *asJSON {
			type jf struct {
				Name        string `json:"name"`
				Type        string `json:"type"`
				Count       int    `json:"count"`
				Units       string `json:"units"`
				Description string `json:"description"`
			}
			out := struct {
				Attr        string `json:"attr_name"`
				SALName     string `json:"sal_name"`
				Kind        string `json:"kind"`
				Description string `json:"description"`
				Fields      []jf   `json:"fields"`
			}{t.AttrName(), t.SALName, t.Kind.String(), t.Description, []jf{}}
			for _, f := range fields {
				out.Fields = append(out.Fields, jf{f.Name, f.Type.String(), f.Count, f.Units, f.Description})
			}
			if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(e.stdout, "\n%s (%s, %s): %s\n", t.AttrName(), t.SALName, t.Kind, oneLine(t.Description, 100))
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		for _, f := range fields {
			typ := f.Type.String()
			if f.IsArray() {
				typ += "[" + strconv.Itoa(f.Count) + "]"
			} else if f.Type == salxml.String && f.MaxLen() > 0 {
				typ += "<" + strconv.Itoa(f.MaxLen()) + ">"
			}
			units := f.Units
			if units == "" {
				units = "-"
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", f.Name, typ, units, oneLine(f.Description, 90))
		}
		tw.Flush()
	}
	return nil
}

func cmdSchema(e *env, args []string) error {
	fs := flags(e, "schema")
	subname := fs.String("subname", "", "topic subname for the -info line (default $LSST_TOPIC_SUBNAME, else sal)")
	info := fs.Bool("info", false, "first print the Kafka topic, subject and revCode on stderr")
	pos, defs, err := parseArgs(e, fs, args, 2, 2, "COMPONENT TOPIC")
	if err != nil {
		return err
	}
	_, t, err := findComponentTopic(defs, pos[0], pos[1])
	if err != nil {
		return err
	}
	if *info {
		sub := *subname
		if sub == "" {
			sub = os.Getenv(sal.EnvSubname)
		}
		if sub == "" {
			sub = sal.DefaultSubname
		}
		fmt.Fprintf(e.stderr, "%s: Kafka topic %s, subject %s, revCode %s\n", t, t.KafkaName(sub), t.Subject(sub), t.RevCode())
	}
	_, err = fmt.Fprintln(e.stdout, t.AvroSchema())
	return err
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max-3] + "..."
	}
	return s
}

// fieldHints adds, to a validation error, the fields close to unknown ones.
func fieldHints(t *salxml.Topic, err error) error {
	var names []string
	for _, f := range t.UserFields() {
		names = append(names, f.Name)
	}
	var hints []string
	for _, fe := range validate.FieldErrors(err) {
		if errors.Is(fe, validate.ErrUnknownField) {
			if c := salxml.Closest(fe.Field, names); len(c) > 0 {
				hints = append(hints, fmt.Sprintf("%s: did you mean %s?", fe.Field, strings.Join(c, ", ")))
			} else {
				hints = append(hints, fmt.Sprintf("%s: the fields of %s are %s", fe.Field, t, strings.Join(names, ", ")))
			}
		}
	}
	if len(hints) == 0 {
		return err
	}
	return fmt.Errorf("%w\n%s", err, strings.Join(hints, "\n"))
}
