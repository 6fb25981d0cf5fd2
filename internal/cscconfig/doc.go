// Package cscconfig is the configuration half of salobj 8.2.12's
// ConfigurableCsc as a library, with no Kafka: where the configuration
// folder is, what configurationsAvailable and configurationApplied carry,
// and what the start command reads, merges and validates, with salobj's
// texts for every failure (docs: salobj-csc.md §1).
//
// A CSC makes one Configurator at construction (New: the LSST_SITE check,
// the schema title's version, the folder from <PKG>_DIR or an explicit
// directory, in salobj's order and with its texts). Then:
//
//   - while in STANDBY, about once a second, and at the start of each start
//     command: Available reads the folder (overrides, git version) and gives
//     the configurationsAvailable fields, to be written if changed; its
//     GitWarning, when set, is salobj's log W;
//   - in the start command: Plan(configurationOverride) gives the files to
//     read and the log D text, Read reads, merges and validates them (Load
//     does both), the CSC's configure hook gets the Config, and Applied gives
//     the configurationApplied fields, to be written forced.
//
// Failures are *Error values whose Error() is salobj's text (the ack result
// is "Failed: " + that text). Expected reports whether salobj raises it as
// an ExpectedError (one log E, no traceback) or as a plain Python error
// (ValueError and friends: logged with a traceback).
//
// The schema is compiled (and checked against the Draft 7 metaschema) in
// New, so a schema that is not valid JSON Schema fails construction with
// "Schema <schema> invalid: SchemaError(...)"; salobj builds its validator
// without that check and would fail only at the first start.
//
// YAML is read with PyYAML's rules (internal/yamlx), so a file means what it
// means to a Python CSC; a mapping key that is not a string (on:, 1:) is a
// parse error here, where Python would accept it below the top level.
// A YAML parse error's text is "Could not parse data in <path> as a dict: "
// followed by the file, line and message; Python has the PyYAML exception's
// repr there, with object addresses.
//
// The bus is untrusted, and two salobj behaviours are deliberately not
// kept (each refusal is an ExpectedError, so the start ack says why):
//
//   - a configurationOverride file name that leaves the folder (an absolute
//     path, "../x", a symlink to a file or folder elsewhere) is refused with
//     "configurationOverride filename='../x' is outside config_dir=<dir>";
//     salobj reads any path, and its ack then quotes the file's content
//     when it is not a configuration (/etc/passwd, say) to everyone on the
//     bus. Symlinks that stay inside the folder are followed;
//   - a git reference that git could take as an option ("-p",
//     "--output=/x") or that is not a plain reference (a space, a control
//     character, one of : ? * [ \, "..", invalid UTF-8) is refused with
//     "configurationOverride git reference '-p' is not valid: it starts with
//     '-'", and git is called with --end-of-options; salobj passes the text
//     to git as it comes. Revision suffixes (HEAD~1, v1^{commit}, main@{1})
//     are accepted. An override that is not valid UTF-8 is refused too.
//
// YAML aliases stay shared: a mapping or list used several times in a file
// is one value in Config.Values, as in Python, and is validated once; a
// file that expands to more than yamlx.MaxNodes (one million) nodes, each
// alias counted in full, is refused as a YAML bomb ("Could not parse data
// in <path> as a dict: <path>:<line>: the document expands to more than
// 1000000 nodes ...").
//
// Config.Decode fills a Go value from the merged configuration by a JSON
// round trip (encoding/json rules: exported fields, json tags, names
// matched case-insensitively, keys without a field ignored); dates and
// timestamps become RFC 3339 text (a timestamp without a zone has no
// offset), binary data base64, and a NaN or infinity is an error naming
// the key, since JSON has no such number. A *map[string]any
// target gets the values as they are (int64, float64, ...).
package cscconfig
