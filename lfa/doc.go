// Package lfa is the Large File Annex: the S3 buckets and keys where SAL
// components put the files they make, named as ts_salobj names them.
//
// A salobj CSC that saves a file uploads it to the bucket
// [MakeBucketName] gives (rubinobs-lfa-summit at the summit) under the key
// [MakeKey] gives, then writes the generic largeFileObjectAvailable event
// with the url s3://{bucket}/{key}. Downstream consumers find files only
// because bucket and key follow these rules exactly, so the functions here
// give ts_salobj 8.2.12's results (AsyncS3Bucket.make_bucket_name and
// make_key) for every input salobj accepts; the tests hold a table that
// salobj's own code made (testdata/naming.json).
//
// # Keys and the observing day
//
// A key has the form
//
//	{fullsalname}/{generator}/{yyyy}/{mm}/{dd}/{fullsalname}_{generator}_{other}{suffix}
//
// where fullsalname is salName, or salName:salIndexName for an indexed
// component, and yyyy/mm/dd is the observing day: the TAI date 12 hours
// earlier, so that one night at the summit is one day. The date is TAI
// Unix seconds, as sal.TAI returns and as a sample's private_sndStamp
// holds, rounded to the millisecond; other defaults to that date in ISO
// 8601 with milliseconds (2024-03-05T11:59:59.999) and suffix to ".dat".
// [MakeKey] keeps its text arguments as given: salobj neither checks nor
// lower-cases them.
//
// # Errors
//
// Both functions return an error wrapping [ErrBadName] for input they
// cannot name, with a text naming the input.
package lfa
