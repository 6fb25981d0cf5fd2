//go:build !race

package jsonschema_test

const raceBuild = false
