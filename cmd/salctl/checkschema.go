package main

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/lsst-sal/salgo/cmd/salctl/internal/cli"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

const checkSchemaHelp = `For every topic of the components named (all when none is), compares the
schema the definitions (-xml, else $TS_XML_DIR, else the embedded Example)
produce with the newest version registered under its subject, as ts_salobj's
check before a ts_xml release: identical, compatible, backward-only,
forward-only, INCOMPATIBLE (a type or array length changed, a field without
default removed), new (not registered yet) or ORPHAN (registered for a topic
the definitions no longer have). It needs a schema registry
(LSST_SCHEMA_REGISTRY_URL or -registry) and changes nothing in it. Exit status
1 when a topic would break readers.`

// cmdCheckSchema compares the schemas the definitions produce with the
// versions registered under each subject, as ts_salobj's check_schema
// does before a ts_xml release, and exits 1 on a hazard.
func cmdCheckSchema(e *env, args []string) error {
	fs := flags(e, "check-schema")
	dir := fs.String("xml", "", "definitions to check (ts_xml checkout, data or sal_interfaces); default $TS_XML_DIR or the embedded Example")
	url := fs.String("registry", os.Getenv("LSST_SCHEMA_REGISTRY_URL"), "schema registry URL (LSST_SCHEMA_REGISTRY_URL)")
	subname := fs.String("subname", envOr("LSST_TOPIC_SUBNAME", "sal"), "topic subname (LSST_TOPIC_SUBNAME)")
	all := fs.Bool("all", false, "also list identical and new topics")
	asJSON := fs.Bool("json", false, "print JSON lines")
	comps, err := parseFlags(e, fs, args)
	if err != nil {
		return err
	}
	if *url == "" {
		return cli.Usagef("no schema registry to compare with: set LSST_SCHEMA_REGISTRY_URL or give -registry URL.\n" +
			"  On a site, that is the Confluent-compatible schema registry of the Kafka cluster the CSCs use\n" +
			"  (the same LSST_SCHEMA_REGISTRY_URL as theirs). To try it locally, start one with\n" +
			"    go run ./examples/localkafka -env-file /tmp/salbus.env\n" +
			"  then, in this shell, . /tmp/salbus.env, publish with the current definitions (e.g. salctl pub\n" +
			"  Example scalars), and run check-schema with -xml pointing at the new ones")
	}
	var defs *salxml.Definitions
	if *dir != "" {
		defs, err = salxml.Open(*dir)
	} else {
		defs, err = loadDefs()
	}
	if err != nil {
		return err
	}
	for _, c := range comps {
		if _, err := findComponent(defs, c); err != nil {
			return err
		}
	}
	checks, err := sal.CheckSchemasAt(e.ctx, *url, *subname, defs, comps...)
	if err != nil {
		return err
	}
	counts := map[sal.SchemaStatus]int{}
	hazards := 0
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	for _, c := range checks {
		counts[c.Status]++
		if c.Status.Hazard() {
			hazards++
		}
		if !*all && (c.Status == sal.SchemaIdentical || c.Status == sal.SchemaNew) {
			continue
		}
		if *asJSON {
			_ = json.NewEncoder(e.stdout).Encode(map[string]any{
				"component": c.Component, "topic": c.Topic, "subject": c.Subject, "status": c.Status.String(),
				"version": c.Version, "id": c.ID, "reason": c.Reason,
			})
			continue
		}
		name := c.Topic
		if name == "" {
			name = c.Subject
		}
		fmt.Fprintf(tw, "%s\t%s.%s\tv%d\t%s\n", c.Status, c.Component, name, c.Version, c.Reason)
	}
	tw.Flush()
	fmt.Fprintf(e.stderr, "check-schema: %d topics: %d identical, %d compatible, %d backward-only, %d forward-only, %d INCOMPATIBLE, %d new, %d ORPHAN (registry %s, subname %s)\n",
		len(checks), counts[sal.SchemaIdentical], counts[sal.SchemaCompatible], counts[sal.SchemaBackward], counts[sal.SchemaForward],
		counts[sal.SchemaIncompatible], counts[sal.SchemaNew], counts[sal.SchemaOrphan], *url, *subname)
	if hazards > 0 {
		return fmt.Errorf("%d topic(s) would break readers in production", hazards)
	}
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
