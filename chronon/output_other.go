//go:build !unix

package chronon

import "os"

// createOutput opens path for writing, truncating an existing file. There
// is no lock here (ErrOutputLocked is unix only).
func createOutput(path string) (*osFile, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	return &osFile{File: f}, nil
}
