//go:build cgo && !race

package tracesql_test

// raceEnabled: see race_on_test.go.
const raceEnabled = false
