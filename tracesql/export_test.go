//go:build cgo

package tracesql

// SetPushdown turns the pushdown of predicates off (false) or on: a test
// compares the answers of the same queries both ways.
func SetPushdown(d *DB, on bool) { d.noPushdown = !on }

// Rewrite returns the query Query runs for q.
func Rewrite(d *DB, q string) string { return d.rewrite(q) }

// ParquetThreads sets the threads a Parquet export of d runs on and returns
// them and what restores the setting.
func ParquetThreads(d *DB) (int64, func(), error) { return d.parquetThreads() }

// SetSerialSpans makes the spans table read every trace on one thread
// (true), as it does when a trace's blocks hold several units: a test
// compares the answers of the parallel scan with it.
func SetSerialSpans(d *DB, on bool) { d.serialSpans = on }

// SpanTasks returns the tasks of the last spans scan in parallel (0: it
// read serially).
func SpanTasks(d *DB) int64 { return d.spanTasks.Load() }

// BudgetPeak returns the most decoded data d's scans held at once.
func BudgetPeak(d *DB) int64 { return d.budget.peakHeld() }
