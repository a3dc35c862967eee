// Package tracesql runs SQL on .ctrace files: DuckDB, embedded, reads the
// events straight from the mapped trace through table functions, with no
// import step.
//
//	db, err := tracesql.Open([]string{"run.ctrace"})
//	...
//	defer db.Close()
//	rows, err := db.SQL().Query(`SELECT unit, count(*) FROM events GROUP BY unit`)
//
// # Tables
//
// events has one row per event; every format has its own table with typed
// columns, named by the format's first word ("decode uop={} dst={}" is
// table decode with columns cycle, unit, unit_id, uop, dst); a span is one
// table named after it, its spans (a span exec: table exec, the rows of
// spans named exec); spans, counters and flows read the formats' kinds and
// argument roles as the exporters do; units, formats, categories, metadata
// and blocks come from the schema and the footer. DB.Tables lists them all
// with their columns.
//
// Every generated name is one a query writes bare: a name the parser takes
// for a keyword somewhere (fetch, at, select), the name of one of DuckDB's
// table functions, tables or views (range, read_parquet) or of one of ours
// (events) gets a trailing '_': "fetch pc=0x{:x} taken={}" is table fetch_,
// an argument named at is column at_. Two formats with the same first word
// and different arguments: the second gets _<format_id>.
//
// Each event table is a view on the table function of the same name, which
// takes the selection as named parameters: events(cycles := '9000000-9001000',
// unit := 'core1.l2'; unit takes trace_reader --unit's forms: a part of the
// name, a pattern such as 'core1.*', '=ROB[0].Top.incoming' for exactly that
// name). The selection reaches the seek index: only the blocks
// whose cycle range and unit set meet it are decoded. A table function
// decodes blocks on DuckDB's threads, in parallel, one block per thread at a
// time, and fills only the columns the query reads (a query on cycle alone
// never looks at the arguments; message is rendered only when asked for).
//
// Several traces open as one database: every table then starts with a trace
// column, each file's label as dump prints it (rank3 from the rank in its
// metadata, else its name without .ctrace; a second rank3 is rank3#2).
// Text from a file that is not UTF-8 (a unit's name) has those bytes
// written \xHH.
//
// Open given a directory reads a dataset: the Parquet files of an export,
// a view per table directory (with a trace column when the files are in
// trace=<label> partitions).
//
// The package needs cgo (DuckDB is a C++ library); without cgo only the
// catalog (FixedTables, ParseCycles) is built: no Open.
// Packages a simulator links (chronon, mmapio) do not import it.
package tracesql
