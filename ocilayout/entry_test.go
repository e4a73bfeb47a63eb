package ocilayout

import "testing"

func TestEntryPath(t *testing.T) {
	cases := []struct {
		name, in, want string
		wantErr        bool
	}{
		{"a plain name is kept", "a/b", "a/b", false},
		{"a leading dot-slash is dropped", "./a/b", "a/b", false},
		{"an absolute name becomes relative", "/etc/passwd", "etc/passwd", false},
		{"an inner dot-dot that stays inside is cleaned", "a/../b", "b", false},
		{"the root itself is empty", "./", "", false},
		{"a leading dot-dot is rejected", "../x", "", true},
		{"an inner climb above the root is rejected", "a/../../x", "", true},
		{"an absolute climb above the root is rejected", "/../x", "", true},
		{"a NUL byte is rejected", "a\x00b", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EntryPath(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("EntryPath(%q) = %q, %v; want %q (err %v)", tc.in, got, err, tc.want, tc.wantErr)
			}
		})
	}
}
