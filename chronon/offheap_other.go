//go:build !unix

package chronon

// Without mmap every buffer comes from the Go heap (offheap.go).

func mapAnon(int) ([]byte, bool) { return nil, false }
func unmapAnon([]byte)           {}
func discardAnon([]byte)         {}
