//go:build race

package zdec

// raceEnabled: the race detector slows the decoder's Go loops tenfold;
// bit-flip campaigns sample fewer bits under it, and make test runs them
// in full without it.
const raceEnabled = true
