// Package yamlx reads YAML the way Python's yaml.safe_load (PyYAML 6, YAML
// 1.1) does, into plain Go values, and writes values back as
// yaml.safe_dump does (SafeDump: what a SAL script prints for --schema).
// It is the module's only importer of the YAML library
// (go.yaml.in/yaml/v3), which is used for parsing only: every
// plain scalar is resolved here with PyYAML's implicit resolvers, so a
// ts_config file means in Go what it means to a Python CSC.
//
// Values, by YAML tag:
//
//	null (~, null, Null, NULL, empty)           nil
//	bool (yes/no/true/false/on/off, 3 cases)    bool        ("y" and "n" are strings)
//	int  (017 octal, 0x1F, 0b101, 1_000, 1:30)  int64, or *big.Int beyond int64
//	float (1.0e+3, 1., .5, .inf, .nan, 1:30.5)  float64     ("1e3" has no dot: a string)
//	str, and every quoted or block scalar       string
//	timestamp 2024-01-01                        Date        (Python datetime.date)
//	timestamp 2001-12-14 21:59:43.10 -5         Timestamp   (Python datetime.datetime)
//	binary                                      []byte
//	seq                                         []any
//	map                                         map[string]any (Unmarshal) or *Map (UnmarshalOrdered)
//
// Explicit tags (!!str, !!int, !!float, !!bool, !!null, !!timestamp,
// !!binary, !!seq, !!map) are honoured as PyYAML's constructors honour them.
// Merge keys (<<) follow PyYAML's flatten_mapping: merged pairs come first,
// the mapping's own keys override them, and in a list of mappings the
// earlier mapping wins. A duplicate key keeps its first position and its
// last value, silently, as a Python dict does. Aliases give the same
// *Map or slice, as PyYAML gives the same object, and Plain keeps them
// shared (one map[string]any, one []any): reading is linear in the text,
// and whoever changes a shared value in place changes it for every alias,
// as in Python.
//
// A document is refused (ErrTooLarge, naming the file and the line where
// the count passes the limit) if it expands to more than MaxNodes (one
// million) nodes, each use of an alias counted as a full copy: a YAML bomb
// such as the 414-byte "billion laughs" is refused before anything is
// built, and whatever walks the values later (validation, encoding/json,
// printing) has at most that much to visit. The YAML library itself stops
// nesting at a depth of 10000 ("exceeded max depth of 10000") and refuses
// invalid UTF-8.
//
// Deliberate differences from PyYAML, each an error that names the file and
// line instead of a value Go cannot hold:
//   - a mapping key that is not a string after YAML 1.1 resolution (on:,
//     1:, null:, a date): quote it;
//   - !!set, !!omap, !!pairs and Python-specific tags;
//   - a recursive alias (an anchor used inside itself).
//
// The non-specific tag "!" (as in "! 12") cannot be seen through the YAML
// library's node tree; such a scalar is resolved as if untagged, where
// PyYAML would give the string "12".
package yamlx
