package lfa_test

import (
	"fmt"

	"github.com/lsst-sal/salgo/lfa"
)

func Example() {
	bucket, err := lfa.MakeBucketName("Summit", lfa.DefaultCategory)
	if err != nil {
		panic(err)
	}
	// 2024-03-05T11:59:59.999 TAI, in TAI Unix seconds (as sal.TAI
	// returns): still the observing day of March 4.
	tai := 1709639999.999
	key, err := lfa.MakeKey("ATSpectrograph", "", "ATSpec", tai, lfa.WithSuffix(".fits"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("s3://%s/%s\n", bucket, key)

	// One millisecond later the observing day is March 5. An indexed
	// component, with an index number, and an explicit other.
	key, err = lfa.MakeKey("FiberSpectrograph", lfa.IndexName(3), "fiberSpecBroad", tai+0.001, lfa.WithOther("seq42"))
	if err != nil {
		panic(err)
	}
	fmt.Println(key)

	_, err = lfa.MakeBucketName("Base_Teststand", lfa.DefaultCategory)
	fmt.Println(err)
	// Output:
	// s3://rubinobs-lfa-summit/ATSpectrograph/ATSpec/2024/03/04/ATSpectrograph_ATSpec_2024-03-05T11:59:59.999.fits
	// FiberSpectrograph:3/fiberSpecBroad/2024/03/05/FiberSpectrograph:3_fiberSpecBroad_seq42.dat
	// lfa: bad name: instance "Base_Teststand" invalid: must start and end with a letter or digit and hold only letters, digits and "."
}
