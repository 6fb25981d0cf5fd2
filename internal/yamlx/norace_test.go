//go:build !race

package yamlx_test

const raceBuild = false
