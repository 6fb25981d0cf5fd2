package lfa

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ErrBadName is wrapped by the errors of [MakeBucketName] and [MakeKey]
// for input they cannot make a name of (salobj raises ValueError).
var ErrBadName = errors.New("lfa: bad name")

// DefaultCategory is salobj's default S3 category, the Large File Annex.
const DefaultCategory = "LFA"

// DefaultSuffix is the suffix of a key made without [WithSuffix].
const DefaultSuffix = ".dat"

// MaxBucketName is the longest bucket name [MakeBucketName] makes, in
// characters (S3's limit).
const MaxBucketName = 63

// MakeBucketName returns the S3 bucket name "rubinobs-{category}-{instance}",
// lower-cased, as ts_salobj's AsyncS3Bucket.make_bucket_name(s3instance,
// s3category) does. instance is the S3 server instance (typically "Summit",
// "Tucson" or "NCSA"); category is the category of S3 server, usually
// [DefaultCategory] (salobj's default).
//
// Each of instance and category must start and end with a letter or digit
// and hold only letters, digits and "."; the name must be at most
// [MaxBucketName] characters. Otherwise the error wraps [ErrBadName] and
// names the argument. "Letter" is salobj's: ASCII letters, and the four
// other characters Python's case-insensitive [a-z] matches (U+0130 İ,
// U+0131 ı, U+017F ſ and U+212A, the Kelvin sign), lower-cased as Python
// lower-cases them.
func MakeBucketName(instance, category string) (string, error) {
	if err := checkBucketArg("instance", instance); err != nil {
		return "", err
	}
	if err := checkBucketArg("category", category); err != nil {
		return "", err
	}
	name := pyLower("rubinobs-" + category + "-" + instance)
	if n := utf8.RuneCountInString(name); n > MaxBucketName {
		return "", fmt.Errorf("%w: bucket name %s too long: len=%d > %d chars", ErrBadName, quote(name), n, MaxBucketName)
	}
	return name, nil
}

// checkBucketArg applies salobj's rule, ^[a-z0-9][a-z0-9.]*$ matched
// ignoring case, to the whole argument and to its last character.
func checkBucketArg(argName, arg string) error {
	ok := arg != ""
	for i, r := range arg {
		if r == utf8.RuneError || !(isBucketAlnum(r) || r == '.' && i > 0) {
			ok = false
			break
		}
	}
	if ok {
		last, _ := utf8.DecodeLastRuneInString(arg)
		ok = isBucketAlnum(last)
	}
	if !ok {
		return fmt.Errorf("%w: %s %s invalid: must start and end with a letter or digit and hold only letters, digits and \".\"", ErrBadName, argName, quote(arg))
	}
	return nil
}

// isBucketAlnum reports whether Python's re.match("[a-z0-9]", s,
// re.IGNORECASE) matches the one-character string r.
func isBucketAlnum(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return true
	case r == '\u0130', r == '\u0131', r == '\u017f', r == '\u212a': // İ ı ſ and the Kelvin sign
		return true
	}
	return false
}

// pyLower is Python's str.lower for the characters a valid bucket name
// holds.
func pyLower(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 1)
	for _, r := range s {
		switch {
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r == '\u0130': // İ; SpecialCasing: i + combining dot above
			b.WriteString("i\u0307")
		case r == '\u212a': // the Kelvin sign
			b.WriteByte('k')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// A KeyOption sets an optional part of a key made by [MakeKey].
type KeyOption interface{ applyKey(*keyConfig) }

type keyConfig struct {
	other, stem *string
	suffix      string
}

type keyOption func(*keyConfig)

func (f keyOption) applyKey(c *keyConfig) { f(c) }

// WithOther sets the text that identifies the data and makes the key unique
// (salobj's other), overriding the default: the date as TAI in ISO 8601
// with milliseconds, such as "2024-03-05T11:59:59.999". An empty other is
// kept empty.
func WithOther(other string) KeyOption {
	return keyOption(func(c *keyConfig) { c.other = &other })
}

// WithStem sets the whole file name before the suffix (salobj's stem), in
// place of {fullsalname}_{generator}_{other}; [WithOther] is then unused.
func WithStem(stem string) KeyOption {
	return keyOption(func(c *keyConfig) { c.stem = &stem })
}

// WithSuffix sets the key's suffix, overriding the default [DefaultSuffix]
// (".dat"). It is appended as given: ".fits" for a FITS file; a suffix
// without a dot gets none.
func WithSuffix(suffix string) KeyOption {
	return keyOption(func(c *keyConfig) { c.suffix = suffix })
}

// IndexName is the salIndexName [MakeKey] takes for a numeric SAL index,
// as salobj reads an int salindexname: "" (not indexed) for 0, else the
// number. For a named index ("MT", "ATBlue") pass the name itself; note
// that the string "0" is an index name, giving "Foo:0".
func IndexName(index int) string {
	if index == 0 {
		return ""
	}
	return strconv.Itoa(index)
}

// The range of dates a key can hold: the TAI date and its observing day in
// four-digit years (salobj's slicing of the ISO text makes malformed keys
// outside them), in milliseconds since 1970-01-01T00:00:00 TAI.
var (
	minKeyMilli = time.Date(1000, 1, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	maxKeyMilli = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli()
)

const (
	halfDayMilli = 12 * 3600 * 1000
	isoMilli     = "2006-01-02T15:04:05.000"
)

// MakeKey returns the S3 key of an item of data, as ts_salobj's
// AsyncS3Bucket.make_key(salname, salindexname, generator, date, other,
// stem, suffix) does:
//
//	{fullsalname}/{generator}/{yyyy}/{mm}/{dd}/{fullsalname}_{generator}_{other}{suffix}
//
// salName is the SAL component's name (ATSpectrograph). salIndexName is ""
// for a component that is not indexed, else a name given to the SAL index
// or the index itself ([IndexName] converts a number as salobj does);
// fullsalname is salName:salIndexName, or salName when salIndexName is "".
// generator is the dataset type. The texts are kept as given.
//
// tai is the date, typically when the data were taken, as TAI Unix seconds:
// seconds since 1970-01-01T00:00:00 TAI, as sal.TAI returns and as a
// sample's private_sndStamp holds (for a time.Time, topics.UTCToTAI). It is
// rounded to the nearest millisecond, halves up; yyyy/mm/dd is the
// observing day, the TAI date of tai minus 12 hours, and the default other
// is the rounded date in ISO 8601 ("2024-03-05T11:59:59.999").
//
// The error wraps [ErrBadName] if tai is not finite, or if the TAI date or
// its observing day is outside the years 1000 to 9999, or if a text is not
// valid UTF-8. (For dates outside those years salobj returns malformed
// keys such as "A/g/999-/5-/1T/...".)
func MakeKey(salName, salIndexName, generator string, tai float64, opts ...KeyOption) (string, error) {
	cfg := keyConfig{suffix: DefaultSuffix}
	for _, o := range opts {
		o.applyKey(&cfg)
	}
	texts := [...]struct{ name, val string }{{"salName", salName}, {"salIndexName", salIndexName}, {"generator", generator}}
	for _, t := range texts {
		if !utf8.ValidString(t.val) {
			return "", fmt.Errorf("%w: %s %s: not valid UTF-8", ErrBadName, t.name, quote(t.val))
		}
	}
	for _, t := range [...]struct {
		name string
		val  *string
	}{{"other", cfg.other}, {"stem", cfg.stem}, {"suffix", &cfg.suffix}} {
		if t.val != nil && !utf8.ValidString(*t.val) {
			return "", fmt.Errorf("%w: %s %s: not valid UTF-8", ErrBadName, t.name, quote(*t.val))
		}
	}
	ms, err := taiMilli(tai)
	if err != nil {
		return "", err
	}
	date := time.UnixMilli(ms).UTC()
	day := time.UnixMilli(ms - halfDayMilli).UTC()

	full := salName
	if salIndexName != "" {
		full += ":" + salIndexName
	}
	var b strings.Builder
	n := 2*len(full) + 2*len(generator) + len(cfg.suffix) + 40
	if cfg.stem != nil {
		n += len(*cfg.stem)
	} else if cfg.other != nil {
		n += len(*cfg.other)
	}
	b.Grow(n)
	b.WriteString(full)
	b.WriteByte('/')
	b.WriteString(generator)
	b.WriteString(day.Format("/2006/01/02/"))
	if cfg.stem != nil {
		b.WriteString(*cfg.stem)
	} else {
		b.WriteString(full)
		b.WriteByte('_')
		b.WriteString(generator)
		b.WriteByte('_')
		if cfg.other != nil {
			b.WriteString(*cfg.other)
		} else {
			b.WriteString(date.Format(isoMilli))
		}
	}
	b.WriteString(cfg.suffix)
	return b.String(), nil
}

// taiMilli rounds tai to the nearest millisecond, halves up, exactly (on
// the float's binary value), and checks it against the range a key can
// hold.
func taiMilli(tai float64) (int64, error) {
	if math.IsNaN(tai) || math.IsInf(tai, 0) {
		return 0, fmt.Errorf("%w: date %v: not a finite TAI time", ErrBadName, tai)
	}
	// Far outside the range: refuse before converting to an integer.
	if tai < float64(minKeyMilli)/1000-1 || tai > float64(maxKeyMilli)/1000+1 {
		return 0, outOfRange(tai)
	}
	f := new(big.Float).SetPrec(128).SetFloat64(tai) // 53 bits, exact
	f.Mul(f, big.NewFloat(1000))                     // ≤ 63 bits, exact
	f.Add(f, big.NewFloat(0.5))                      // exact but for |tai| < 2⁻⁶⁰, 0 either way
	ms, acc := f.Int64()                             // truncates toward zero
	if acc == big.Above {                            // negative with a fraction: floor
		ms--
	}
	if ms < minKeyMilli || ms > maxKeyMilli {
		return 0, outOfRange(tai)
	}
	return ms, nil
}

func outOfRange(tai float64) error {
	return fmt.Errorf("%w: date %v (TAI Unix seconds): the date and its observing day (12 hours earlier) must be in the years 1000 to 9999", ErrBadName, tai)
}

// maxQuoted bounds the input an error text quotes, in bytes (quoted, at
// most four times as many).
const maxQuoted = 64

// quote is s in Go quotes, cut after maxQuoted bytes (at a character
// boundary) with the length said.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted
	for cut > maxQuoted-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
}
