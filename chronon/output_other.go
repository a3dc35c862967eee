//go:build !unix

package chronon

// createOutput opens path for writing, truncating an existing file.
func createOutput(path string) (*osFile, error) {
	f, err := openTruncate(path)
	return &osFile{File: f}, err
}
