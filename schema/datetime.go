package schema

// IsDateTime reports whether s is a date-time of RFC 3339 (section 5.6), which the JSON Schema
// format "date-time" requires: YYYY-MM-DD, "T", hh:mm:ss, an optional fraction of a second,
// then "Z" or a ±hh:mm offset. "t" and "z" may be lower case. The date must exist, and second
// 60 (a leap second) is allowed only at 23:59 UTC.
func IsDateTime(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || s[10] != 'T' && s[10] != 't' {
		return false
	}
	year, ok1 := digits(s[0:4])
	month, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) {
		return false
	}
	hour, ok1 := digits(s[11:13])
	minute, ok2 := digits(s[14:16])
	second, ok3 := digits(s[17:19])
	if !ok1 || !ok2 || !ok3 || s[13] != ':' || s[16] != ':' || hour > 23 || minute > 59 || second > 60 {
		return false
	}
	rest := s[19:]
	if len(rest) > 0 && rest[0] == '.' {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	utc := hour*60 + minute
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return false
		}
		offset := oh*60 + om
		if rest[0] == '+' {
			offset = -offset
		}
		utc = ((utc+offset)%(24*60) + 24*60) % (24 * 60)
	default:
		return false
	}
	return second < 60 || utc == 23*60+59
}

// digits parses a string of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, len(s) > 0
}

// daysIn returns the number of days of a month of the Gregorian calendar.
func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
