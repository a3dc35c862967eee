//go:build cgo

package tracesql

/*
#include <stdlib.h>
void ctrace_bind(void *);
void ctrace_init(void *);
void ctrace_local_init(void *);
void ctrace_function(void *, void *);
void ctrace_delete(void *);
typedef void (*ctrace_bind_t)(void *);
typedef void (*ctrace_function_t)(void *, void *);
typedef void (*ctrace_delete_t)(void *);
*/
import "C"

import (
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"runtime/cgo"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// Table functions are registered through DuckDB's C API directly (the
// mapping package of duckdb-go) rather than duckdb-go's RegisterTableUDF:
// a scan then writes its columns straight into the vectors' memory (a
// store per value instead of a call per value), sets a column that is the
// same on every row of a chunk as a constant vector, builds a string
// column whose values repeat (unit, format) as a dictionary of the chunk's
// distinct values, and keeps its state per execution of a query (a
// prepared statement runs again from the start), where duckdb-go reads an
// ENUM's whole dictionary into a map on every chunk.

// tableFunction is a table function: its name, its VARCHAR parameters
// (positional, then named) and what binds a call.
type tableFunction struct {
	name  string
	pos   int      // positional VARCHAR parameters
	named []string // named VARCHAR parameters
	bind  func(a bindArgs) (scanner, error)
}

// bindArgs are a call's parameters: "" for NULL or left out.
type bindArgs struct {
	pos   []string
	named map[string]string
}

// scanner is a bound call: its columns, and what runs it.
type scanner interface {
	columns() []Column
	// cardinality estimates the rows (exact: it is the count).
	cardinality() (rows uint64, exact bool)
	// start begins one execution that reads columns cols (indices into
	// columns(), in the order of the output chunk's vectors; -1 for a
	// column DuckDB adds, such as the row id).
	start(cols []int) (execution, error)
}

// execution is one run of a bound call, shared by DuckDB's threads.
type execution interface {
	threads() int
	local() scanThread
}

// scanThread is one thread's part of an execution.
type scanThread interface {
	// fill writes the next rows into out (out.setSize); none ends the
	// thread's scan.
	fill(out *chunk) error
}

// registerFunction registers f on conn.
func registerFunction(conn *sql.Conn, f *tableFunction) error {
	mc, err := rawConnection(conn)
	if err != nil {
		return err
	}
	fn := mapping.CreateTableFunction()
	defer mapping.DestroyTableFunction(&fn)
	mapping.TableFunctionSetName(fn, f.name)
	varchar := mapping.CreateLogicalType(mapping.TypeVarchar)
	defer mapping.DestroyLogicalType(&varchar)
	for range f.pos {
		mapping.TableFunctionAddParameter(fn, varchar)
	}
	for _, n := range f.named {
		mapping.TableFunctionAddNamedParameter(fn, n, varchar)
	}
	mapping.TableFunctionSetExtraInfo(fn, newHandle(f), deleteCallback())
	mapping.TableFunctionSetBind(fn, unsafe.Pointer(C.ctrace_bind_t(C.ctrace_bind)))
	mapping.TableFunctionSetInit(fn, unsafe.Pointer(C.ctrace_bind_t(C.ctrace_init)))
	mapping.TableFunctionSetLocalInit(fn, unsafe.Pointer(C.ctrace_bind_t(C.ctrace_local_init)))
	mapping.TableFunctionSetFunction(fn, unsafe.Pointer(C.ctrace_function_t(C.ctrace_function)))
	mapping.TableFunctionSupportsProjectionPushdown(fn, true)
	if mapping.RegisterTableFunction(mc, fn) == mapping.StateError {
		return fmt.Errorf("tracesql: registering table function %s failed", f.name)
	}
	return nil
}

// rawConnection returns the C API connection behind a duckdb-go
// connection. duckdb-go keeps it in an unexported field (the one its own
// RegisterTableUDF uses); its name and type are checked, so that a
// duckdb-go that moved it fails Open with this error instead of misbehaving.
func rawConnection(conn *sql.Conn) (mapping.Connection, error) {
	var mc mapping.Connection
	err := conn.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return fmt.Errorf("tracesql: not a duckdb-go connection: %T", dc)
		}
		var err error
		mc, err = connOf(c)
		return err
	})
	return mc, err
}

// connOf returns the C API connection of c (rawConnection).
func connOf(c *duckdb.Conn) (mapping.Connection, error) {
	f := reflect.ValueOf(c).Elem().FieldByName("conn")
	if !f.IsValid() || f.Type() != reflect.TypeFor[mapping.Connection]() {
		return mapping.Connection{}, errors.New("tracesql: this duckdb-go version keeps its connection elsewhere (duckdb.Conn.conn): the table functions cannot be registered")
	}
	return *(*mapping.Connection)(unsafe.Pointer(f.UnsafeAddr())), nil
}

// newHandle stores v where C can hold it: a cgo.Handle in C memory, freed
// by ctrace_delete.
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(cgo.Handle(0))))
	*(*cgo.Handle)(p) = cgo.NewHandle(v)
	return p
}

func handleValue(p unsafe.Pointer) any { return (*(*cgo.Handle)(p)).Value() }

func deleteCallback() unsafe.Pointer { return unsafe.Pointer(C.ctrace_delete_t(C.ctrace_delete)) }

// closer is a state that releases what it holds when DuckDB drops it.
type closer interface{ close() }

//export ctrace_delete
func ctrace_delete(p unsafe.Pointer) {
	h := *(*cgo.Handle)(p)
	if c, ok := h.Value().(closer); ok {
		c.close()
	}
	h.Delete()
	C.free(p)
}

// caught turns a panic of a callback into an error for DuckDB: a Go panic
// must not unwind through C++ (it would end the process).
func caught(set func(string)) {
	if r := recover(); r != nil {
		set(fmt.Sprintf("tracesql: internal error: %v", r))
	}
}

//export ctrace_bind
func ctrace_bind(p unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: p}
	defer caught(func(msg string) { mapping.BindSetError(info, msg) })
	f := handleValue(mapping.BindGetExtraInfo(info)).(*tableFunction)
	a := bindArgs{pos: make([]string, f.pos), named: map[string]string{}}
	str := func(v mapping.Value) string {
		defer mapping.DestroyValue(&v)
		if v.Ptr == nil || mapping.IsNullValue(v) {
			return ""
		}
		return mapping.GetVarchar(v)
	}
	for i := range f.pos {
		a.pos[i] = str(mapping.BindGetParameter(info, mapping.IdxT(i)))
	}
	for _, n := range f.named {
		a.named[n] = str(mapping.BindGetNamedParameter(info, n))
	}
	s, err := f.bind(a)
	if err != nil {
		mapping.BindSetError(info, err.Error())
		return
	}
	for _, c := range s.columns() {
		lt := logicalType(c.Type)
		mapping.BindAddResultColumn(info, c.Name, lt)
		mapping.DestroyLogicalType(&lt)
	}
	if n, exact := s.cardinality(); n > 0 || exact {
		mapping.BindSetCardinality(info, mapping.IdxT(n), exact)
	}
	mapping.BindSetBindData(info, newHandle(s), deleteCallback())
}

// rowIDColumn is the column index DuckDB passes for its row id.
const rowIDColumn = ^mapping.IdxT(0)

//export ctrace_init
func ctrace_init(p unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: p}
	defer caught(func(msg string) { mapping.InitSetError(info, msg) })
	s := handleValue(mapping.InitGetBindData(info)).(scanner)
	cols := make([]int, mapping.InitGetColumnCount(info))
	for i := range cols {
		c := mapping.InitGetColumnIndex(info, mapping.IdxT(i))
		cols[i] = -1
		if c != rowIDColumn {
			cols[i] = int(c)
		}
	}
	ex, err := s.start(cols)
	if err != nil {
		mapping.InitSetError(info, err.Error())
		return
	}
	mapping.InitSetMaxThreads(info, mapping.IdxT(max(1, ex.threads())))
	mapping.InitSetInitData(info, newHandle(ex), deleteCallback())
}

//export ctrace_local_init
func ctrace_local_init(p unsafe.Pointer) {
	info := mapping.InitInfo{Ptr: p}
	defer caught(func(msg string) { mapping.InitSetError(info, msg) })
	// The global state is not reachable from a local init through the C
	// API: the thread's state is made on its first call (ctrace_function).
	mapping.InitSetInitData(info, newHandle(&threadSlot{}), deleteCallback())
}

// threadSlot holds a thread's state once its first call made it.
type threadSlot struct {
	t   scanThread
	out chunk
}

func (s *threadSlot) close() {
	if c, ok := s.t.(closer); ok {
		c.close()
	}
}

//export ctrace_function
func ctrace_function(p, outPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: p}
	defer caught(func(msg string) { mapping.FunctionSetError(info, msg) })
	slot := handleValue(mapping.FunctionGetLocalInitData(info)).(*threadSlot)
	if slot.t == nil {
		slot.t = handleValue(mapping.FunctionGetInitData(info)).(execution).local()
	}
	slot.out.reset(mapping.DataChunk{Ptr: outPtr})
	if err := slot.t.fill(&slot.out); err != nil {
		mapping.FunctionSetError(info, err.Error())
		mapping.DataChunkSetSize(slot.out.raw, 0)
	}
}

// logicalType is the DuckDB type of a catalog type name.
func logicalType(name string) mapping.LogicalType {
	t, ok := typeIDs[name]
	if !ok {
		panic("tracesql: no DuckDB type " + name) // the catalog's own names
	}
	return mapping.CreateLogicalType(t)
}

var typeIDs = map[string]mapping.Type{
	"TINYINT": mapping.TypeTinyInt, "SMALLINT": mapping.TypeSmallInt, "INTEGER": mapping.TypeInteger,
	"BIGINT": mapping.TypeBigInt, "UTINYINT": mapping.TypeUTinyInt, "USMALLINT": mapping.TypeUSmallInt,
	"UINTEGER": mapping.TypeUInteger, "UBIGINT": mapping.TypeUBigInt, "FLOAT": mapping.TypeFloat,
	"DOUBLE": mapping.TypeDouble, "BOOLEAN": mapping.TypeBoolean, "VARCHAR": mapping.TypeVarchar,
}
