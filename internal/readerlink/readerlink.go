// Package readerlink carries what the reading package (mmapio) lends the
// module's other packages to them: mmapio sets it when it is initialized,
// package rawread takes it, typed. It exists because rawread, which names
// mmapio's types, is above mmapio and cannot be imported by it.
package readerlink

var link any

// Set records mmapio's link; mmapio calls it once, when it is initialized.
func Set(l any) { link = l }

// Get returns what Set recorded (nil before).
func Get() any { return link }
