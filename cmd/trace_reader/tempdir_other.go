//go:build !unix

package main

import "os"

// lockDir: no advisory locks here; temporary directories carry no marker
// and a killed export's stay.
func lockDir(string) *os.File { return nil }

// tryLockDir: never taken, so nothing is swept.
func tryLockDir(string) *os.File { return nil }
