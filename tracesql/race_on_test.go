//go:build cgo && race

package tracesql_test

// raceEnabled: under the race detector the generated-query comparison runs
// a third of its queries; make test's stage without it runs them all.
const raceEnabled = true
