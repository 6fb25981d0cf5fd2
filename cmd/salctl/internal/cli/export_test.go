package cli

// DescribedClass is describedClass, for tests.
var DescribedClass = describedClass
