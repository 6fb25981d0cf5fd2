package jsonschema_test

import (
	"os"
	"testing"

	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"

	"github.com/lsst-sal/salgo/internal/wirefixture"
)

// pyCases: a schema and an instance (both YAML; "@test" is the TestCsc
// schema of the fixtures), with repr(error) and str(error) of the first
// error jsonschema 4.26's Draft7Validator yields (recorded once with
// Python 3.11.7 and PyYAML 6.0.3; the test does not run Python). Empty
// texts: the instance is valid.
var pyCases = []struct{ schema, instance, repr, plain string }{
	{"@test", "string0: 0\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1]\nmulti_type: null\n", "<ValidationError: \"0 is not of type 'string'\">", "0 is not of type 'string'\n\nFailed validating 'type' in schema['properties']['string0']:\n    {'type': 'string'}\n\nOn instance['string0']:\n    0"},
	{"@test", "string0: a\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1]\nmulti_type: null\nunwanted: 1\n", "<ValidationError: \"Additional properties are not allowed ('unwanted' was unexpected)\">", "Additional properties are not allowed ('unwanted' was unexpected)\n\nFailed validating 'additionalProperties' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py',\n     'title': 'Test v2',\n     'description': 'Configuration for the TestCsc',\n     'type': 'object',\n     'properties': {'string0': {'type': 'string'},\n                    'bool0': {'type': 'boolean'},\n                    'int0': {'type': 'integer'},\n                    'float0': {'type': 'number'},\n                    'intarr0': {'type': 'array',\n                                'items': {'type': 'integer'}},\n                    'multi_type': {'anyOf': [{'type': 'integer',\n                                              'minimum': 1},\n                                             {'type': 'string'},\n                                             {'type': 'null'}]}},\n     'required': ['string0',\n                  'bool0',\n                  'int0',\n                  'float0',\n                  'intarr0',\n                  'multi_type'],\n     'additionalProperties': False}\n\nOn instance:\n    {'string0': 'a',\n     'bool0': True,\n     'int0': 1,\n     'float0': 1.5,\n     'intarr0': [1],\n     'multi_type': None,\n     'unwanted': 1}"},
	{"@test", "string0: a\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1]\nmulti_type: null\nzzz: 1\naaa: 2\n", "<ValidationError: \"Additional properties are not allowed ('aaa', 'zzz' were unexpected)\">", "Additional properties are not allowed ('aaa', 'zzz' were unexpected)\n\nFailed validating 'additionalProperties' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py',\n     'title': 'Test v2',\n     'description': 'Configuration for the TestCsc',\n     'type': 'object',\n     'properties': {'string0': {'type': 'string'},\n                    'bool0': {'type': 'boolean'},\n                    'int0': {'type': 'integer'},\n                    'float0': {'type': 'number'},\n                    'intarr0': {'type': 'array',\n                                'items': {'type': 'integer'}},\n                    'multi_type': {'anyOf': [{'type': 'integer',\n                                              'minimum': 1},\n                                             {'type': 'string'},\n                                             {'type': 'null'}]}},\n     'required': ['string0',\n                  'bool0',\n                  'int0',\n                  'float0',\n                  'intarr0',\n                  'multi_type'],\n     'additionalProperties': False}\n\nOn instance:\n    {'string0': 'a',\n     'bool0': True,\n     'int0': 1,\n     'float0': 1.5,\n     'intarr0': [1],\n     'multi_type': None,\n     'zzz': 1,\n     'aaa': 2}"},
	{"@test", "string0: a\nbool0: true\nint0: 1\nintarr0: [1]\nmulti_type: null\n", "<ValidationError: \"'float0' is a required property\">", "'float0' is a required property\n\nFailed validating 'required' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py',\n     'title': 'Test v2',\n     'description': 'Configuration for the TestCsc',\n     'type': 'object',\n     'properties': {'string0': {'type': 'string'},\n                    'bool0': {'type': 'boolean'},\n                    'int0': {'type': 'integer'},\n                    'float0': {'type': 'number'},\n                    'intarr0': {'type': 'array',\n                                'items': {'type': 'integer'}},\n                    'multi_type': {'anyOf': [{'type': 'integer',\n                                              'minimum': 1},\n                                             {'type': 'string'},\n                                             {'type': 'null'}]}},\n     'required': ['string0',\n                  'bool0',\n                  'int0',\n                  'float0',\n                  'intarr0',\n                  'multi_type'],\n     'additionalProperties': False}\n\nOn instance:\n    {'string0': 'a',\n     'bool0': True,\n     'int0': 1,\n     'intarr0': [1],\n     'multi_type': None}"},
	{"@test", "string0: a\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1]\nmulti_type: 0\n", "<ValidationError: '0 is not valid under any of the given schemas'>", "0 is not valid under any of the given schemas\n\nFailed validating 'anyOf' in schema['properties']['multi_type']:\n    {'anyOf': [{'type': 'integer', 'minimum': 1},\n               {'type': 'string'},\n               {'type': 'null'}]}\n\nOn instance['multi_type']:\n    0"},
	{"@test", "string0: a\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1, a]\nmulti_type: null\n", "<ValidationError: \"'a' is not of type 'integer'\">", "'a' is not of type 'integer'\n\nFailed validating 'type' in schema['properties']['intarr0']['items']:\n    {'type': 'integer'}\n\nOn instance['intarr0'][1]:\n    'a'"},
	{"@test", "{}", "<ValidationError: \"'string0' is a required property\">", "'string0' is a required property\n\nFailed validating 'required' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py',\n     'title': 'Test v2',\n     'description': 'Configuration for the TestCsc',\n     'type': 'object',\n     'properties': {'string0': {'type': 'string'},\n                    'bool0': {'type': 'boolean'},\n                    'int0': {'type': 'integer'},\n                    'float0': {'type': 'number'},\n                    'intarr0': {'type': 'array',\n                                'items': {'type': 'integer'}},\n                    'multi_type': {'anyOf': [{'type': 'integer',\n                                              'minimum': 1},\n                                             {'type': 'string'},\n                                             {'type': 'null'}]}},\n     'required': ['string0',\n                  'bool0',\n                  'int0',\n                  'float0',\n                  'intarr0',\n                  'multi_type'],\n     'additionalProperties': False}\n\nOn instance:\n    {}"},
	{"@test", "string0: 0\nbool0: true\nint0: 1\nintarr0: [1]\nmulti_type: null\nextra: 1\n", "<ValidationError: \"0 is not of type 'string'\">", "0 is not of type 'string'\n\nFailed validating 'type' in schema['properties']['string0']:\n    {'type': 'string'}\n\nOn instance['string0']:\n    0"},
	{"@test", "string0: a\nbool0: true\nint0: 1.0\nfloat0: 1.5\nintarr0: [1]\nmulti_type: null\n", "", ""},
	{"@test", "string0: a\nbool0: true\nint0: 1\nfloat0: true\nintarr0: [1]\nmulti_type: null\n", "<ValidationError: \"True is not of type 'number'\">", "True is not of type 'number'\n\nFailed validating 'type' in schema['properties']['float0']:\n    {'type': 'number'}\n\nOn instance['float0']:\n    True"},
	{"@test", "string0: 2024-01-01\nbool0: true\nint0: 1\nfloat0: 1.5\nintarr0: [1]\nmulti_type: null\n", "<ValidationError: \"datetime.date(2024, 1, 1) is not of type 'string'\">", "datetime.date(2024, 1, 1) is not of type 'string'\n\nFailed validating 'type' in schema['properties']['string0']:\n    {'type': 'string'}\n\nOn instance['string0']:\n    datetime.date(2024, 1, 1)"},
	{"@test", "1.5", "<ValidationError: \"1.5 is not of type 'object'\">", "1.5 is not of type 'object'\n\nFailed validating 'type' in schema:\n    {'$schema': 'http://json-schema.org/draft-07/schema#',\n     '$id': 'https://github.com/lsst-ts/ts_salobj/blob/main/python/lsst/ts/salobj/config_schema.py',\n     'title': 'Test v2',\n     'description': 'Configuration for the TestCsc',\n     'type': 'object',\n     'properties': {'string0': {'type': 'string'},\n                    'bool0': {'type': 'boolean'},\n                    'int0': {'type': 'integer'},\n                    'float0': {'type': 'number'},\n                    'intarr0': {'type': 'array',\n                                'items': {'type': 'integer'}},\n                    'multi_type': {'anyOf': [{'type': 'integer',\n                                              'minimum': 1},\n                                             {'type': 'string'},\n                                             {'type': 'null'}]}},\n     'required': ['string0',\n                  'bool0',\n                  'int0',\n                  'float0',\n                  'intarr0',\n                  'multi_type'],\n     'additionalProperties': False}\n\nOn instance:\n    1.5"},
	{"type: [string, 'null']", "1", "<ValidationError: \"1 is not of type 'string', 'null'\">", "1 is not of type 'string', 'null'\n\nFailed validating 'type' in schema:\n    {'type': ['string', 'null']}\n\nOn instance:\n    1"},
	{"enum: [a, 1, null]", "b", "<ValidationError: \"'b' is not one of ['a', 1, None]\">", "'b' is not one of ['a', 1, None]\n\nFailed validating 'enum' in schema:\n    {'enum': ['a', 1, None]}\n\nOn instance:\n    'b'"},
	{"enum: [1]", "true", "<ValidationError: 'True is not one of [1]'>", "True is not one of [1]\n\nFailed validating 'enum' in schema:\n    {'enum': [1]}\n\nOn instance:\n    True"},
	{"const: {a: [1]}", "{a: [2]}", "<ValidationError: \"{'a': [1]} was expected\">", "{'a': [1]} was expected\n\nFailed validating 'const' in schema:\n    {'const': {'a': [1]}}\n\nOn instance:\n    {'a': [2]}"},
	{"minimum: 0", "-1", "<ValidationError: '-1 is less than the minimum of 0'>", "-1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema:\n    {'minimum': 0}\n\nOn instance:\n    -1"},
	{"minimum: 0.5", "0", "<ValidationError: '0 is less than the minimum of 0.5'>", "0 is less than the minimum of 0.5\n\nFailed validating 'minimum' in schema:\n    {'minimum': 0.5}\n\nOn instance:\n    0"},
	{"maximum: 10", "11.5", "<ValidationError: '11.5 is greater than the maximum of 10'>", "11.5 is greater than the maximum of 10\n\nFailed validating 'maximum' in schema:\n    {'maximum': 10}\n\nOn instance:\n    11.5"},
	{"exclusiveMinimum: 0", "0", "<ValidationError: '0 is less than or equal to the minimum of 0'>", "0 is less than or equal to the minimum of 0\n\nFailed validating 'exclusiveMinimum' in schema:\n    {'exclusiveMinimum': 0}\n\nOn instance:\n    0"},
	{"exclusiveMaximum: 1.5", "1.5", "<ValidationError: '1.5 is greater than or equal to the maximum of 1.5'>", "1.5 is greater than or equal to the maximum of 1.5\n\nFailed validating 'exclusiveMaximum' in schema:\n    {'exclusiveMaximum': 1.5}\n\nOn instance:\n    1.5"},
	{"multipleOf: 3", "7", "<ValidationError: '7 is not a multiple of 3'>", "7 is not a multiple of 3\n\nFailed validating 'multipleOf' in schema:\n    {'multipleOf': 3}\n\nOn instance:\n    7"},
	{"multipleOf: 0.1", "0.35", "<ValidationError: '0.35 is not a multiple of 0.1'>", "0.35 is not a multiple of 0.1\n\nFailed validating 'multipleOf' in schema:\n    {'multipleOf': 0.1}\n\nOn instance:\n    0.35"},
	{"multipleOf: 2", "7.5", "<ValidationError: '7.5 is not a multiple of 2'>", "7.5 is not a multiple of 2\n\nFailed validating 'multipleOf' in schema:\n    {'multipleOf': 2}\n\nOn instance:\n    7.5"},
	{"minLength: 1", "''", "<ValidationError: \"'' should be non-empty\">", "'' should be non-empty\n\nFailed validating 'minLength' in schema:\n    {'minLength': 1}\n\nOn instance:\n    ''"},
	{"minLength: 3", "ab", "<ValidationError: \"'ab' is too short\">", "'ab' is too short\n\nFailed validating 'minLength' in schema:\n    {'minLength': 3}\n\nOn instance:\n    'ab'"},
	{"maxLength: 0", "a", "<ValidationError: \"'a' is expected to be empty\">", "'a' is expected to be empty\n\nFailed validating 'maxLength' in schema:\n    {'maxLength': 0}\n\nOn instance:\n    'a'"},
	{"maxLength: 2", "abc", "<ValidationError: \"'abc' is too long\">", "'abc' is too long\n\nFailed validating 'maxLength' in schema:\n    {'maxLength': 2}\n\nOn instance:\n    'abc'"},
	{"minItems: 1", "[]", "<ValidationError: '[] should be non-empty'>", "[] should be non-empty\n\nFailed validating 'minItems' in schema:\n    {'minItems': 1}\n\nOn instance:\n    []"},
	{"maxItems: 1", "[1, 2]", "<ValidationError: '[1, 2] is too long'>", "[1, 2] is too long\n\nFailed validating 'maxItems' in schema:\n    {'maxItems': 1}\n\nOn instance:\n    [1, 2]"},
	{"maxItems: 0", "[1]", "<ValidationError: '[1] is expected to be empty'>", "[1] is expected to be empty\n\nFailed validating 'maxItems' in schema:\n    {'maxItems': 0}\n\nOn instance:\n    [1]"},
	{"uniqueItems: true", "[1, true, 1.0]", "<ValidationError: '[1, True, 1.0] has non-unique elements'>", "[1, True, 1.0] has non-unique elements\n\nFailed validating 'uniqueItems' in schema:\n    {'uniqueItems': True}\n\nOn instance:\n    [1, True, 1.0]"},
	{"uniqueItems: true", "[1, true]", "", ""},
	{"pattern: '^a+$'", "abc", "<ValidationError: \"'abc' does not match '^a+$'\">", "'abc' does not match '^a+$'\n\nFailed validating 'pattern' in schema:\n    {'pattern': '^a+$'}\n\nOn instance:\n    'abc'"},
	{"minProperties: 1", "{}", "<ValidationError: '{} should be non-empty'>", "{} should be non-empty\n\nFailed validating 'minProperties' in schema:\n    {'minProperties': 1}\n\nOn instance:\n    {}"},
	{"maxProperties: 1", "{a: 1, b: 2}", "<ValidationError: \"{'a': 1, 'b': 2} has too many properties\">", "{'a': 1, 'b': 2} has too many properties\n\nFailed validating 'maxProperties' in schema:\n    {'maxProperties': 1}\n\nOn instance:\n    {'a': 1, 'b': 2}"},
	{"patternProperties: {'^x': {type: integer}}\nadditionalProperties: false", "{x1: 1, y: 2, z: 3}", "<ValidationError: \"'y', 'z' do not match any of the regexes: '^x'\">", "'y', 'z' do not match any of the regexes: '^x'\n\nFailed validating 'additionalProperties' in schema:\n    {'patternProperties': {'^x': {'type': 'integer'}},\n     'additionalProperties': False}\n\nOn instance:\n    {'x1': 1, 'y': 2, 'z': 3}"},
	{"patternProperties: {'^x': {type: integer}}\nadditionalProperties: false", "{x1: a}", "<ValidationError: \"'a' is not of type 'integer'\">", "'a' is not of type 'integer'\n\nFailed validating 'type' in schema['patternProperties']['^x']:\n    {'type': 'integer'}\n\nOn instance['x1']:\n    'a'"},
	{"properties: {a: {}}\nadditionalProperties: {type: string}", "{a: 1, b: 2}", "<ValidationError: \"2 is not of type 'string'\">", "2 is not of type 'string'\n\nFailed validating 'type' in schema['additionalProperties']:\n    {'type': 'string'}\n\nOn instance['b']:\n    2"},
	{"items: [{type: integer}, {type: string}]\nadditionalItems: false", "[1, a, 3, 4]", "<ValidationError: 'Additional items are not allowed (3, 4 were unexpected)'>", "Additional items are not allowed (3, 4 were unexpected)\n\nFailed validating 'additionalItems' in schema:\n    {'items': [{'type': 'integer'}, {'type': 'string'}],\n     'additionalItems': False}\n\nOn instance:\n    [1, 'a', 3, 4]"},
	{"items: [{type: integer}]\nadditionalItems: {type: string}", "[1, 2]", "<ValidationError: \"2 is not of type 'string'\">", "2 is not of type 'string'\n\nFailed validating 'type' in schema['additionalItems']:\n    {'type': 'string'}\n\nOn instance[1]:\n    2"},
	{"items: [{type: integer}, {type: string}]", "[a]", "<ValidationError: \"'a' is not of type 'integer'\">", "'a' is not of type 'integer'\n\nFailed validating 'type' in schema['items'][0]:\n    {'type': 'integer'}\n\nOn instance[0]:\n    'a'"},
	{"contains: {type: string}", "[1, 2]", "<ValidationError: 'None of [1, 2] are valid under the given schema'>", "None of [1, 2] are valid under the given schema\n\nFailed validating 'contains' in schema:\n    {'contains': {'type': 'string'}}\n\nOn instance:\n    [1, 2]"},
	{"dependencies: {a: [b, c]}", "{a: 1, c: 2}", "<ValidationError: \"'b' is a dependency of 'a'\">", "'b' is a dependency of 'a'\n\nFailed validating 'dependencies' in schema:\n    {'dependencies': {'a': ['b', 'c']}}\n\nOn instance:\n    {'a': 1, 'c': 2}"},
	{"dependencies: {a: {required: [d]}}", "{a: 1}", "<ValidationError: \"'d' is a required property\">", "'d' is a required property\n\nFailed validating 'required' in schema['dependencies']['a']:\n    {'required': ['d']}\n\nOn instance:\n    {'a': 1}"},
	{"not: {type: integer}", "1", "<ValidationError: \"1 should not be valid under {'type': 'integer'}\">", "1 should not be valid under {'type': 'integer'}\n\nFailed validating 'not' in schema:\n    {'not': {'type': 'integer'}}\n\nOn instance:\n    1"},
	{"oneOf: [{type: integer}, {minimum: 0}]", "1", "<ValidationError: \"1 is valid under each of {'minimum': 0}, {'type': 'integer'}\">", "1 is valid under each of {'minimum': 0}, {'type': 'integer'}\n\nFailed validating 'oneOf' in schema:\n    {'oneOf': [{'type': 'integer'}, {'minimum': 0}]}\n\nOn instance:\n    1"},
	{"oneOf: [{type: string}, {type: 'null'}]", "1", "<ValidationError: '1 is not valid under any of the given schemas'>", "1 is not valid under any of the given schemas\n\nFailed validating 'oneOf' in schema:\n    {'oneOf': [{'type': 'string'}, {'type': 'null'}]}\n\nOn instance:\n    1"},
	{"allOf: [{type: integer}, {minimum: 5}]", "1", "<ValidationError: '1 is less than the minimum of 5'>", "1 is less than the minimum of 5\n\nFailed validating 'minimum' in schema['allOf'][1]:\n    {'minimum': 5}\n\nOn instance:\n    1"},
	{"if: {type: integer}\nthen: {minimum: 5}\nelse: {type: string}", "1", "<ValidationError: '1 is less than the minimum of 5'>", "1 is less than the minimum of 5\n\nFailed validating 'minimum' in schema['then']:\n    {'minimum': 5}\n\nOn instance:\n    1"},
	{"if: {type: integer}\nthen: {minimum: 5}\nelse: {type: string}", "[]", "<ValidationError: \"[] is not of type 'string'\">", "[] is not of type 'string'\n\nFailed validating 'type' in schema['else']:\n    {'type': 'string'}\n\nOn instance:\n    []"},
	{"propertyNames: {maxLength: 2}", "{abc: 1}", "<ValidationError: \"'abc' is too long\">", "'abc' is too long\n\nFailed validating 'maxLength' in schema['propertyNames']:\n    {'maxLength': 2}\n\nOn instance:\n    'abc'"},
	{"definitions: {pos: {type: number, minimum: 0}}\nproperties: {x: {$ref: '#/definitions/pos'}}", "{x: -1}", "<ValidationError: '-1 is less than the minimum of 0'>", "-1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema['properties']['x']:\n    {'type': 'number', 'minimum': 0}\n\nOn instance['x']:\n    -1"},
	{"properties: {x: false}", "{x: 1}", "<ValidationError: 'False schema does not allow 1'>", "False schema does not allow 1\n\nFailed validating None in schema:\n    False\n\nOn instance:\n    1"},
	{"false", "1", "<ValidationError: 'False schema does not allow 1'>", "False schema does not allow 1\n\nFailed validating None in schema:\n    False\n\nOn instance:\n    1"},
	{"required: [b, a]", "{}", "<ValidationError: \"'b' is a required property\">", "'b' is a required property\n\nFailed validating 'required' in schema:\n    {'required': ['b', 'a']}\n\nOn instance:\n    {}"},
	{"properties: {b: {type: string}, a: {type: string}}", "{a: 1, b: 2}", "<ValidationError: \"2 is not of type 'string'\">", "2 is not of type 'string'\n\nFailed validating 'type' in schema['properties']['b']:\n    {'type': 'string'}\n\nOn instance['b']:\n    2"},
	{"type: object\nproperties:\n  wait_time:\n    type: number\n    minimum: 0\n    description: a long description of the waiting time that will certainly make the pprint output wrap over several lines\n", "{wait_time: -1}", "<ValidationError: '-1 is less than the minimum of 0'>", "-1 is less than the minimum of 0\n\nFailed validating 'minimum' in schema['properties']['wait_time']:\n    {'type': 'number',\n     'minimum': 0,\n     'description': 'a long description of the waiting time that will '\n                    'certainly make the pprint output wrap over several '\n                    'lines'}\n\nOn instance['wait_time']:\n    -1"},
	{"type: integer", "12345678901234567890.5", "", ""},
	{"maximum: 100", "12345678901234567890", "<ValidationError: '12345678901234567890 is greater than the maximum of 100'>", "12345678901234567890 is greater than the maximum of 100\n\nFailed validating 'maximum' in schema:\n    {'maximum': 100}\n\nOn instance:\n    12345678901234567890"},
	{"type: string", "{b: 1, a: [1, 2]}", "<ValidationError: \"{'b': 1, 'a': [1, 2]} is not of type 'string'\">", "{'b': 1, 'a': [1, 2]} is not of type 'string'\n\nFailed validating 'type' in schema:\n    {'type': 'string'}\n\nOn instance:\n    {'b': 1, 'a': [1, 2]}"},
	{"type: object", "[{a: 'it''s'}, \"x\\ty\"]", "<ValidationError: '[{\\'a\\': \"it\\'s\"}, \\'x\\\\ty\\'] is not of type \\'object\\''>", "[{'a': \"it's\"}, 'x\\ty'] is not of type 'object'\n\nFailed validating 'type' in schema:\n    {'type': 'object'}\n\nOn instance:\n    [{'a': \"it's\"}, 'x\\ty']"},
}

func TestFirstErrorMatchesPythonJsonschema(t *testing.T) {
	testSchema, err := os.ReadFile(wirefixture.Shared(t, "test-csc-config-schema.yaml"))
	if err != nil {
		t.Skipf("fixture missing: %v", err)
	}
	for _, c := range pyCases {
		text := []byte(c.schema)
		if c.schema == "@test" {
			text = testSchema
		}
		s, err := jsonschema.Compile("case.yaml", text)
		if err != nil {
			t.Errorf("%s: Compile: %v", c.schema, err)
			continue
		}
		inst, err := yamlx.UnmarshalOrdered("instance.yaml", []byte(c.instance))
		if err != nil {
			t.Fatalf("%s: %v", c.instance, err)
		}
		verr := s.Validate(inst)
		if c.repr == "" {
			if verr != nil {
				t.Errorf("schema %q, instance %q: got %v, want valid", c.schema, c.instance, verr)
			}
			continue
		}
		ve, ok := verr.(*jsonschema.ValidationError)
		if !ok {
			t.Errorf("schema %q, instance %q: got %#v, want a *ValidationError %s", c.schema, c.instance, verr, c.repr)
			continue
		}
		if got := pyrepr.Repr(ve); got != c.repr {
			t.Errorf("schema %q, instance %q:\n got %s\nwant %s", c.schema, c.instance, got, c.repr)
		}
		if got := ve.Plain(); got != c.plain {
			t.Errorf("schema %q, instance %q: plain form\n got %q\nwant %q", c.schema, c.instance, got, c.plain)
		}
	}
}
