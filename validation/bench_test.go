package validation

import "testing"

// BenchmarkValidatePod measures the semantic checks on a realistic pod that uses every feature.
func BenchmarkValidatePod(b *testing.B) {
	p := basePod(b)
	p.SetDefaults()
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidatePod(p); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkValidatePodUpdate measures update legality on two copies of that pod.
func BenchmarkValidatePodUpdate(b *testing.B) {
	oldPod, newPod := basePod(b), basePod(b)
	oldPod.SetDefaults()
	newPod.Spec.Containers[0].Image = "oci:images/db:6"
	newPod.SetDefaults()
	b.ReportAllocs()
	for b.Loop() {
		if errs := ValidatePodUpdate(newPod, oldPod); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
