package schema

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestIsDateTimeFollowsRFC3339(t *testing.T) {
	for s, want := range map[string]bool{
		"2026-11-30T12:00:00Z":                true,
		"2026-11-30t12:00:00z":                true,
		"2026-11-30T12:00:00.123456789Z":      true,
		"2026-11-30T12:00:00.1234567891Z":     true, // RFC 3339 does not bound the fraction
		"2026-11-30T12:00:00+01:00":           true,
		"2026-11-30T12:00:00-23:59":           true,
		"2024-02-29T00:00:00Z":                true, // a leap year
		"2000-02-29T00:00:00Z":                true, // divisible by 400
		"1900-02-29T00:00:00Z":                false,
		"2026-02-29T00:00:00Z":                false,
		"2026-04-31T00:00:00Z":                false,
		"2026-12-31T23:59:60Z":                true, // a leap second at 23:59 UTC
		"2026-12-31T23:59:60.5Z":              true,
		"2027-01-01T00:59:60+01:00":           true, // 23:59 UTC
		"2026-12-31T22:59:60-01:00":           true,
		"2026-12-31T23:58:60Z":                false,
		"2026-12-31T23:59:60+01:00":           false, // 22:59 UTC
		"2026-11-30T24:00:00Z":                false,
		"2026-11-30T12:60:00Z":                false,
		"2026-11-30T12:00:61Z":                false,
		"2026-00-10T12:00:00Z":                false,
		"2026-13-10T12:00:00Z":                false,
		"2026-11-00T12:00:00Z":                false,
		"2026-11-30 12:00:00Z":                false,
		"2026-11-30T12:00:00":                 false,
		"2026-11-30T12:00:00.Z":               false,
		"2026-11-30T12:00:00+0100":            false,
		"2026-11-30T12:00:00+24:00":           false,
		"2026-11-30T12:00:00+01:60":           false,
		"2026-11-30T+1:+2:+3Z":                false,
		"2026-11-30T12:00:00Z ":               false,
		"+026-11-30T12:00:00Z":                false,
		"26-11-30T12:00:00Z":                  false,
		"2026-1-30T12:00:00Z":                 false,
		"":                                    false,
		"yesterday":                           false,
		"2026-11-30T12:00:00.000000000+00:00": true,
	} {
		if got := IsDateTime(s); got != want {
			t.Errorf("IsDateTime(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzIsDateTime holds IsDateTime to Go's own RFC 3339 parser wherever the two should agree:
// Go rejects leap seconds and lower-case "t" and "z", which RFC 3339 allows.
func FuzzIsDateTime(f *testing.F) {
	for _, s := range []string{"2026-11-30T12:00:00Z", "2026-11-30T12:00:00.5+01:00", "2024-02-29T23:59:59-00:30", "2026-11-30T24:00:00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := time.Parse(time.RFC3339Nano, s)
		got := IsDateTime(s)
		rfcOnly := strings.ContainsAny(s, "tz") || len(s) >= 19 && s[17:19] == "60"
		if got && err != nil && !rfcOnly {
			t.Errorf("IsDateTime(%q) is true; time.Parse says %v", s, err)
		}
		// Go also takes one-digit hours, offset minutes of 60 and the like; where s has RFC
		// 3339's shape, both agree.
		if !got && err == nil && rfcShape.MatchString(s) {
			t.Errorf("IsDateTime(%q) is false; time.Parse accepts it", s)
		}
	})
}

var rfcShape = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
