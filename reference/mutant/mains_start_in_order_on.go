//go:build mutant_mains_start_in_order

package mutant

// MainsStartInOrder is true in the mutant build mutant_mains_start_in_order: main containers start in the order the pod lists them, each only once the one before it has started, so one waiting for its dependency holds back every later one (breaks HB-018).
const MainsStartInOrder = true
