// Package registry is the SDK's only user of franz-go's schema registry
// client. It registers schemas (POST /subjects/{s}/versions, as the
// reference does) and fetches writer schemas by id, caching both: the
// registry client itself caches nothing.
package registry
