package provider

// CheckBody is checkBody (schema_test.go) for the tests of other packages:
// the corpus test, package provider_test, imports core/formats, which imports
// this package.
var CheckBody = checkBody
