package main

import (
	"math"
	"strings"
	"testing"
)

func TestStopGracePeriodIsNonNegativeAndSaturates(t *testing.T) {
	for _, c := range []struct {
		arg     string
		want    int64
		wantErr string
	}{
		{arg: "0", want: 0},
		{arg: "30", want: 30},
		{arg: "9223372036854775807", want: math.MaxInt64},
		{arg: "99999999999999999999999999", want: math.MaxInt64},
		{arg: "-1", wantErr: "at least 0"},
		{arg: "-99999999999999999999999999", wantErr: "at least 0"},
		{arg: "5s", wantErr: "not a whole number"},
		{arg: "", wantErr: "not a whole number"},
	} {
		var g gracePeriod
		err := g.Set(c.arg)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("--grace-period %q: error %v, want one saying %q", c.arg, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("--grace-period %q: %v", c.arg, err)
		case g.seconds == nil || *g.seconds != c.want:
			t.Errorf("--grace-period %q = %v, want %d", c.arg, g.seconds, c.want)
		}
	}
}

func TestStopWithANegativeGracePeriodIsAUsageError(t *testing.T) {
	c := cmdline{t: t, root: t.TempDir()}
	for _, args := range [][]string{{"stop", "--grace-period", "-1", "web"}, {"stop", "--grace-period=-5", "web"}} {
		if _, code := c.run(args...); code != 2 {
			t.Errorf("podspec %s: exit %d, want 2 (Usage), not the pod's own grace period", strings.Join(args, " "), code)
		}
	}
	// Without the flag the request is checked further: the unknown pod is NotFound.
	if _, code := c.run("stop", "web"); code != 4 {
		t.Errorf("stop of an unknown pod: exit %d, want 4", code)
	}
}
