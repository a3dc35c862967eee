package rewrite

// Result says what Complete or Merge wrote.
type Result struct {
	Bytes     int64   // bytes written
	Blocks    int     // blocks written
	Events    uint64  // events in them
	Copied    int     // blocks copied as they were
	Rewritten int     // blocks decoded, their ids renumbered, re-encoded (Merge)
	Dropped   []error // blocks left out, each error naming one (Complete of a file opened with mmapio.WithRepair)
}
