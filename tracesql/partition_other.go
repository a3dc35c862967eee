//go:build !linux

package tracesql

import "errors"

// exchangeDirs: no atomic exchange of two names here; replaceDir renames
// the old one aside first.
func exchangeDirs(a, b string) error { return errors.ErrUnsupported }
