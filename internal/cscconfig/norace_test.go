//go:build !race

package cscconfig_test

const raceBuild = false
