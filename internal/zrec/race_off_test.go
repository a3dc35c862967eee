//go:build !race

package zrec

// raceEnabled: see race_on_test.go.
const raceEnabled = false
