//go:build !race

package main

// raceSlowdown scales the time limits of tests under the race detector.
const raceSlowdown = 1

// raceEnabled: see race_on_test.go.
const raceEnabled = false
