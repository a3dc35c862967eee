//go:build race

package main

// raceEnabled: the race detector slows building crafted files tenfold and its
// shadow memory swamps RSS bounds; such tests run in make test's bounds
// stage, without it.
const raceEnabled = true
