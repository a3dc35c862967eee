// Package testplan checks make test's plan against the tests it runs: every
// test that runs smaller under the race detector (it reads its package's
// raceEnabled constant, itself or through a helper) is named in the list
// of stage 5, which runs it at full size without the detector, and every
// name in that list is a test that exists. A test added without its line
// in the list would otherwise run only its smaller campaign, forever.
package testplan
