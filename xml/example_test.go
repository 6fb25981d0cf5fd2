package xml_test

import (
	"fmt"

	salxml "github.com/lsst-sal/salgo/xml"
)

// The version a CSC publishes as softwareVersions.xmlVersion. Definitions
// opened from ts_xml report its release, such as "28.0.1".
func ExampleDefinitions_Version() {
	fmt.Println(salxml.Embedded().Version())
	fmt.Println(salxml.Embedded(salxml.WithVersion("28.0.1")).Version())
	// Output:
	// salgo-example
	// 28.0.1
}
