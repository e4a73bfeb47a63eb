package procstat

import (
	"errors"
	"os"
	"testing"
)

func TestParse(t *testing.T) {
	line := "4242 (a) b) (c) Z 17 4242 4242 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n"
	s, err := Parse([]byte(line))
	if err != nil || s.State != 'Z' || s.PPID != 17 || s.StartTime != 98765 || !s.Ended() {
		t.Fatalf("Parse = %+v, %v; want Z, parent 17, start 98765, ended", s, err)
	}
	s, err = Parse([]byte("4242 (a) S 17 4242 4242 0 -1 4194564 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n"))
	if err != nil || s.Flags != 4194564 || s.Ended() || !s.Exiting() {
		t.Fatalf("Parse = %+v, %v; want flags 4194564 (PF_EXITING): exiting, not ended", s, err)
	}
	for _, bad := range []string{"", "4242 no parenthesis S 1", "4242 (x) S", "4242 (x) S one"} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if s, err := Parse([]byte("1 (x) S 0")); err != nil || s.StartTime != 0 || s.Ended() {
		t.Errorf("a short line: %+v, %v; want start 0, running", s, err)
	}
}

func TestReadThisProcessAndAMissingOne(t *testing.T) {
	s, err := Read(os.Getpid())
	if err != nil || s.PPID != os.Getppid() || s.StartTime == 0 || s.Ended() || s.Exiting() {
		t.Fatalf("Read(self) = %+v, %v", s, err)
	}
	if _, err := Read(1 << 30); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Read of a missing pid: %v, want os.ErrNotExist", err)
	}
}

func TestStartTime(t *testing.T) {
	st, err := Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if got := StartTime(os.Getpid()); got == 0 || got != st.StartTime {
		t.Errorf("StartTime(self) = %d, want %d (Read's), not 0", got, st.StartTime)
	}
	if got := StartTime(-1); got != 0 {
		t.Errorf("StartTime(-1) = %d, want 0 for no such process", got)
	}
}
