//go:build !race

package zdec

// raceEnabled: see race_on_test.go.
const raceEnabled = false
