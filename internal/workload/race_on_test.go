//go:build race

package workload

// raceEnabled: under the race detector some tests write smaller traces
// (their comments say why); make test's stage without it runs them in full.
const raceEnabled = true
