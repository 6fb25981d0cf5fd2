// Command salgen generates typed-record packages for SAL components: per
// component, a Go package with a struct per topic (implementing
// topics.Record, encoded to and decoded from Avro without maps), the
// component's enumerations, typed Remote, CSC and Controller, and the
// component's definition files, embedded (see internal/salgen for what
// is generated and how names are made).
//
// Usage:
//
//	salgen [-xml DIR] -out DIR [-version V] [COMPONENT ...]
//
// It writes the package of each named component (all components when
// none is named) into DIR/<component in lower case>, replacing the files
// an earlier run wrote there and nothing else. -xml names the ts_xml
// definitions (default $TS_XML_DIR; with neither, or -xml= given empty,
// the SDK's embedded Example and Script components). -version sets the
// ts_xml version written into the packages (default: the definitions'
// own, see xml.Definitions.Version).
//
// From a go:generate line:
//
//	//go:generate go run github.com/lsst-sal/salgo/cmd/salgen -out . MTM1M3
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lsst-sal/salgo/internal/salgen"
	salxml "github.com/lsst-sal/salgo/xml"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "salgen:", strings.TrimPrefix(err.Error(), "salgen: "))
		}
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("salgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	xmlDir := fs.String("xml", os.Getenv(salxml.EnvDir), "ts_xml definitions `DIR` (default $"+salxml.EnvDir+"; empty: the SDK's embedded definitions)")
	out := fs.String("out", "", "output `DIR`: each component's package goes to DIR/<component in lower case>")
	version := fs.String("version", "", "ts_xml `version` written into the packages (default: the definitions')")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: salgen [-xml DIR] -out DIR [-version V] [COMPONENT ...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("-out is required")
	}
	if st, err := os.Stat(*out); err != nil {
		return fmt.Errorf("output folder: %w", err)
	} else if !st.IsDir() {
		return fmt.Errorf("output folder %s is not a folder", *out)
	}
	var defs *salxml.Definitions
	if *xmlDir == "" {
		defs = salxml.Embedded()
	} else {
		var err error
		if defs, err = salxml.Open(*xmlDir); err != nil {
			return err
		}
	}
	comps := fs.Args()
	if len(comps) == 0 {
		comps = defs.Names()
	}
	for _, c := range comps {
		if !defs.Has(c) {
			if cl := salxml.Closest(c, defs.Names()); len(cl) > 0 {
				return fmt.Errorf("unknown component %q in %s (did you mean %s?)", c, defs.Dir, strings.Join(cl, ", "))
			}
			return fmt.Errorf("unknown component %q in %s (it defines %s)", c, defs.Dir, strings.Join(defs.Names(), ", "))
		}
	}
	for _, c := range comps {
		if err := salgen.Generate(defs, c, *out, salgen.Options{Version: *version}); err != nil {
			return err
		}
	}
	return nil
}
