//go:build race

package chronon_test

// raceEnabled: the race detector's shadow memory multiplies RSS, so memory
// bounds on RSS apply to normal builds only (heap bounds apply to both).
const raceEnabled = true
