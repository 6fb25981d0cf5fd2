package lfa_test

import (
	"fmt"

	"github.com/lsst-sal/salgo/lfa"
)

func ExampleMakeBucketName() {
	bucket, err := lfa.MakeBucketName("Summit", lfa.DefaultCategory)
	fmt.Println(bucket, err)

	_, err = lfa.MakeBucketName("Base_Teststand", lfa.DefaultCategory)
	fmt.Println(err)
	// Output:
	// rubinobs-lfa-summit <nil>
	// lfa: bad name: instance "Base_Teststand" invalid: must start and end with a letter or digit and hold only letters, digits and "."
}

func ExampleMakeKey() {
	// 2024-03-05T11:59:59.999 TAI, as TAI Unix seconds (what sal.TAI
	// returns): still the observing day of March 4.
	tai := 1709639999.999
	key, err := lfa.MakeKey("ATSpectrograph", "", "ATSpec", tai, lfa.WithSuffix(".fits"))
	if err != nil {
		panic(err)
	}
	fmt.Println(key)

	// One millisecond later it is March 5's. An indexed component, by its
	// index number, with an explicit other.
	key, err = lfa.MakeKey("FiberSpectrograph", lfa.IndexName(3), "fiberSpecBroad", tai+0.001, lfa.WithOther("seq42"))
	if err != nil {
		panic(err)
	}
	fmt.Println(key)

	// A stem replaces the whole file name.
	key, err = lfa.MakeKey("Foo", "Blue", "testFiberSpecBlue", tai, lfa.WithStem("FF_O_20240305_000001"), lfa.WithSuffix(".fits"))
	if err != nil {
		panic(err)
	}
	fmt.Println(key)
	// Output:
	// ATSpectrograph/ATSpec/2024/03/04/ATSpectrograph_ATSpec_2024-03-05T11:59:59.999.fits
	// FiberSpectrograph:3/fiberSpecBroad/2024/03/05/FiberSpectrograph:3_fiberSpecBroad_seq42.dat
	// Foo:Blue/testFiberSpecBlue/2024/03/04/FF_O_20240305_000001.fits
}
