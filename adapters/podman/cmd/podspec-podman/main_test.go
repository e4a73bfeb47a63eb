package main

import "testing"

// TestParseFollowsTheContract: flags before or after the positional arguments, both long forms,
// the last of a repeated global flag; usage errors for an unknown verb or flag, a missing or
// extra argument, and a flag without its value.
func TestParseFollowsTheContract(t *testing.T) {
	inv, err := parse([]string{"--root", "/a", "--error-format=json", "stop", "web", "--grace-period", "3", "--force", "--root", "/b"})
	if err != nil {
		t.Fatal(err)
	}
	if inv.verb != "stop" || inv.args[0] != "web" || inv.flags["grace-period"] != "3" || inv.global["root"] != "/b" || inv.global["error-format"] != "json" {
		t.Errorf("parsed %+v", inv)
	}
	if _, force := inv.flags["force"]; !force {
		t.Errorf("--force lost: %+v", inv)
	}
	for _, bad := range [][]string{{"no-such-verb"}, {"status"}, {"status", "a", "b"}, {"list", "--no-such-flag"}, {"wait", "p", "--timeout"}, {"rm", "--force=yes", "p"}, {}} {
		if _, err := parse(bad); err == nil {
			t.Errorf("parse(%q) accepted", bad)
		}
	}
}
