package yamlx_test

import (
	"testing"

	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// pformatCases: a value (as JSON, which is YAML) and
// pprint.pformat(value, width=72, sort_dicts=False) from CPython 3.11.7.
var pformatCases = []struct{ value, want string }{
	{"{\"a\": 1, \"b\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", "{'a': 1,\n 'b': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}"},
	{"[\"word word word word word word word word word word word word word word word word word word word word \"]", "['word word word word word word word word word word word word word '\n 'word word word word word word word ']"},
	{"{\"type\": \"object\", \"properties\": {\"x\": {\"type\": \"number\", \"description\": \"a fairly long description that goes past the width of seventy-two\"}, \"y\": {\"enum\": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]}}}", "{'type': 'object',\n 'properties': {'x': {'type': 'number',\n                      'description': 'a fairly long description that '\n                                     'goes past the width of '\n                                     'seventy-two'},\n                'y': {'enum': [0,\n                               1,\n                               2,\n                               3,\n                               4,\n                               5,\n                               6,\n                               7,\n                               8,\n                               9,\n                               10,\n                               11,\n                               12,\n                               13,\n                               14,\n                               15,\n                               16,\n                               17,\n                               18,\n                               19,\n                               20,\n                               21,\n                               22,\n                               23,\n                               24,\n                               25,\n                               26,\n                               27,\n                               28,\n                               29]}}}"},
	{"\"short\"", "'short'"},
	{"\"a long line of text a long line of text a long line of text a long line of text a long line of text a long line of text \"", "('a long line of text a long line of text a long line of text a long '\n 'line of text a long line of text a long line of text ')"},
	{"\"line one\\nline two which is long enough to need wrapping at some point, surely now\\n\"", "('line one\\n'\n 'line two which is long enough to need wrapping at some point, surely '\n 'now\\n')"},
	{"[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]", "[0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29,\n 30,\n 31,\n 32,\n 33,\n 34,\n 35,\n 36,\n 37,\n 38,\n 39]"},
}

func TestPFormatMatchesPython(t *testing.T) {
	for _, c := range pformatCases {
		v, err := yamlx.UnmarshalOrdered("value.json", []byte(c.value))
		if err != nil {
			t.Fatal(err)
		}
		if got := pyrepr.PFormat(v, 72); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.value, got, c.want)
		}
	}
}
