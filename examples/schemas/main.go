package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	salxml "github.com/lsst-sal/salgo/xml"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "schemas:", err)
		os.Exit(1)
	}
}

type line struct {
	Component   string `json:"component"`
	SALName     string `json:"sal_name"`
	KafkaName   string `json:"kafka_name"`
	AvroSubject string `json:"avro_subject"`
	Schema      string `json:"schema"`
	RevCode     string `json:"revcode"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("schemas", flag.ExitOnError)
	dir := fs.String("xml", "", "ts_xml folder (checkout root, data or sal_interfaces); default $TS_XML_DIR or the embedded example")
	comp := fs.String("component", "", "only this component")
	subname := fs.String("subname", "sal", "topic subname (LSST_TOPIC_SUBNAME)")
	_ = fs.Parse(args) // ExitOnError: a bad flag exits with status 2
	if fs.NArg() > 0 {
		fs.Usage()
		os.Exit(2)
	}
	var defs *salxml.Definitions
	var err error
	if *dir != "" {
		defs, err = salxml.Open(*dir)
	} else {
		defs, err = salxml.FromEnv()
	}
	if err != nil {
		return err
	}
	names := defs.Names()
	if *comp != "" {
		if !defs.Has(*comp) {
			_, err := defs.Component(*comp)
			return err
		}
		names = []string{*comp}
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, n := range names {
		c, err := defs.Component(n)
		if err != nil {
			return err
		}
		for _, t := range c.Topics {
			if err := enc.Encode(line{
				Component:   c.Name,
				SALName:     t.SALName,
				KafkaName:   t.KafkaName(*subname),
				AvroSubject: t.Subject(*subname),
				Schema:      t.AvroSchema(),
				RevCode:     t.RevCode(),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}
