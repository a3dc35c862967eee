//go:build race

package zrec

// raceEnabled: the race detector slows the encoder's Go loops tenfold;
// tests that compare thousands of encodings run fewer under it, and make
// test runs them in full without it (its bounds stage).
const raceEnabled = true
