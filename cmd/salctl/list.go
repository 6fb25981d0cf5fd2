package main

// list: the SAL topics that exist on the bus, as kcat -L and ros2 topic
// list show a broker's.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	salxml "github.com/lsst-sal/salgo/xml"
)

const listHelp = `Lists, as kcat -L and ros2 topic list do, the Kafka topics of SAL that exist
on the bus (lsst.SUBNAME.COMPONENT.TOPIC, SUBNAME from LSST_TOPIC_SUBNAME,
default sal), only those of the COMPONENTs named if any, sorted, with the kind
of each topic, its partitions and the records it keeps: the sum over its
partitions of the high watermark minus the low one (records that retention
deleted are not counted; a topic is listed once a writer or reader created
it, even with no record). A COMPONENT the definitions do not have is listed
by its name all the same. -all lists every topic of the broker (_schemas...).
On the in-process bus nothing exists but what this run makes: a built-in CSC
of each COMPONENT named (or of the one component defined) first creates its
topics and writes its events.`

// listRow is one topic; its JSON form is what -json prints.
type listRow struct {
	Topic      string `json:"topic"`
	Component  string `json:"component,omitempty"`
	Name       string `json:"sal_name,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Partitions int    `json:"partitions"`
	Records    int64  `json:"records"`
}

// kindOf is the kind of a SAL topic by its name.
func kindOf(salName string) string {
	switch {
	case salName == "ackcmd":
		return "ackcmd"
	case strings.HasPrefix(salName, "command_"):
		return "command"
	case strings.HasPrefix(salName, "logevent_"):
		return "event"
	}
	return "telemetry"
}

func cmdList(e *env, args []string) error {
	fs := flags(e, "list")
	asJSON := fs.Bool("json", false, "print one JSON object per topic")
	all := fs.Bool("all", false, "list every topic of the broker, not only SAL's")
	verbose := fs.Bool("v", false, "log the SDK's info messages on stderr")
	pos, defs, err := parseArgs(e, fs, args, 0, -1, "[COMPONENT...]")
	if err != nil {
		return err
	}
	if *all && len(pos) > 0 {
		return cli.Usagef("-all lists every topic: give no COMPONENT with it")
	}
	var comps []*salxml.Component // those the definitions have, for the built-in CSCs
	for _, name := range pos {
		if strings.Contains(name, ":") {
			return cli.Usagef("%q: list counts the records of whole topics, which hold every SAL index: give COMPONENT without :INDEX", name)
		}
		if !defs.Has(name) {
			fmt.Fprintf(e.stderr, "salctl list: warning: %s is not in the definitions (%s); listing its topics by name all the same\n", name, defs.Dir)
			continue
		}
		c, err := defs.Component(name)
		if err != nil {
			return err
		}
		comps = append(comps, c)
	}
	if len(pos) == 0 && len(defs.Names()) == 1 {
		c, err := defs.Component(defs.Names()[0])
		if err != nil {
			return err
		}
		comps = append(comps, c)
	}
	var peer string
	if len(comps) > 0 {
		var names []string
		for _, c := range comps {
			names = append(names, c.NameIndex(demoIndex(c, 0)))
		}
		peer = "built-in CSCs " + strings.Join(names, ", ") + " first create their topics"
	}
	bus, err := connect(e, "list", defs, *verbose, peer)
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	if bus.Embedded() {
		for _, c := range comps {
			csc, err := demoCSC(ctx, bus, c, demoIndex(c, 0))
			if err != nil {
				return err
			}
			defer csc.Close()
		}
	}

	sub := bus.Config().Subname
	var prefixes []string
	switch {
	case *all:
		prefixes = []string{""}
	case len(pos) == 0:
		prefixes = []string{"lsst." + sub + "."}
	default:
		for _, name := range pos {
			prefixes = append(prefixes, "lsst."+sub+"."+name+".")
		}
	}
	var names []string
	for _, p := range prefixes {
		ns, err := bus.ExistingTopics(ctx, p)
		if err != nil {
			return err
		}
		names = append(names, ns...)
	}
	offs, err := bus.Offsets(ctx, names...)
	if err != nil {
		return err
	}
	rows := map[string]*listRow{}
	for _, name := range names {
		r := &listRow{Topic: name}
		if rest, ok := strings.CutPrefix(name, "lsst."+sub+"."); ok {
			if comp, topic, ok := strings.Cut(rest, "."); ok {
				r.Component, r.Name, r.Kind = comp, topic, kindOf(topic)
			}
		}
		rows[name] = r
	}
	for _, o := range offs {
		if r := rows[o.Topic]; r != nil {
			r.Partitions++
			r.Records += o.Records()
		}
	}
	var total int64
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	if !*asJSON {
		fmt.Fprintf(tw, "TOPIC\tKIND\tPARTITIONS\tRECORDS\n")
	}
	for _, name := range names {
		r := rows[name]
		total += r.Records
		if *asJSON {
			if err := json.NewEncoder(e.stdout).Encode(r); err != nil {
				return err
			}
			continue
		}
		kind := r.Kind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", r.Topic, kind, r.Partitions, r.Records)
	}
	if *asJSON {
		return nil
	}
	tw.Flush()
	where := strings.Join(bus.Config().Brokers, ",")
	if bus.Embedded() {
		where = "the in-process bus"
	}
	fmt.Fprintf(e.stdout, "%d topics, %d records on %s (subname %s)\n", len(names), total, where, sub)
	return nil
}
