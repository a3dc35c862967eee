//go:build !race

package chronon_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
