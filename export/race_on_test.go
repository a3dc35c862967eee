//go:build race

package export

// raceEnabled: under the race detector some tests run a smaller input
// (their comments say why); make test's stage without it runs them in full.
const raceEnabled = true
