// Package xml reads the SAL interface definitions of ts_xml at run time:
// SALSubsystems.xml, SALGenerics.xml, each component's Commands, Events and
// Telemetry files, and the camera .avsc topics.
//
// It produces a definition model (Component, Topic, Field, Enumeration) in
// which generics are merged exactly as the reference Python implementation
// (ts_xml's ComponentInfo) merges them, and renders each topic's Avro schema
// text byte for byte as the reference registers it, with its revCode.
//
// # Locating the definitions
//
// Open accepts a ts_xml checkout root, its data folder or a sal_interfaces
// folder. FromEnv uses the TS_XML_DIR environment variable and falls back to
// Embedded, the project's own definitions: the example component
// "Example" and the "Script" component of SAL scripts.
//
// # Version
//
// Version reports the ts_xml release the definitions come from ("28.0.1"),
// which ts_salobj publishes as softwareVersions.xmlVersion. It is set by
// WithVersion or TS_XML_VERSION, or read from where the definitions carry
// it: the version.py or .dist-info of an installed ts_xml package, a
// SOURCE.md "Version:" line beside a copied sal_interfaces folder, or
// `git describe --tags` of a ts_xml checkout (see Definitions.Version for
// the order). The embedded definitions report EmbeddedVersion; when no
// source tells, Version is UnknownVersion ("?", as ts_xml's own
// __version__ then is).
//
// # Errors
//
// Malformed input gives a *ParseError naming the file, the line and what is
// wrong; rule violations also match ErrInvalid with errors.Is. The parser
// never panics on bad input.
//
// The package name shadows encoding/xml; callers that need both import one
// under another name.
package xml
