//go:build race

package main

// raceSlowdown scales the time limits of tests under the race detector.
const raceSlowdown = 4

// raceEnabled: the race detector slows building crafted files tenfold and its
// shadow memory swamps RSS bounds; such tests run in make test's bounds
// stage, without it.
const raceEnabled = true
