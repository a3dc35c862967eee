// Package workload holds the synthetic workloads that tracegen, the
// benchmarks, the tests and the C examples share, defined once so that every
// implementation emits the same events.
package workload

// SplitMix64 is the PRNG the workloads are defined with.
type SplitMix64 struct{ State uint64 }

// Next returns the next value: state += golden gamma, then the mix.
func (s *SplitMix64) Next() uint64 {
	s.State += 0x9E3779B97F4A7C15
	z := s.State
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}
