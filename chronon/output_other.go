//go:build !unix

package chronon

// createOutput opens path for writing, truncating an existing file.
func createOutput(path string) (*osFile, error) { return truncatedOutput(path) }
