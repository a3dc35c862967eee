package chronon

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/chronon-sim/chronon-go/schema"
)

// Symbol is a string stored once per file: Tracer.Intern returns it, and
// an argument of type Symbol (a FormatN type parameter) is written as its
// 4-byte id with the schema's Symbol role. Readers print the string; the
// original C++ reader prints the id. Kinds, names and locations that repeat
// in every event cost 4 bytes each instead of their text, and no string
// copy at the emit.
//
// A Symbol belongs to the Tracer that interned it: emitting it into a unit
// of another tracer prints another string (or "[symbol N]").
type Symbol uint32

// SymbolOverflow is what Intern returns once the tracer's symbol table is
// full (WithSymbolLimit): readers print it as "[symbol table full]", and
// Stats counts every string that got it.
const SymbolOverflow = Symbol(schema.SymbolOverflow)

// Limits of a tracer's symbol table.
const (
	DefaultSymbolLimit = 1 << 16 // symbols per file, unless WithSymbolLimit
	MaxSymbolLimit     = 1 << 20
	MaxSymbolBytes     = 1 << 10 // a longer string is not interned (SymbolOverflow)
	maxSymbolTableSize = 8 << 20 // bytes of all the strings of a table
)

// WithSymbolLimit bounds the tracer's symbol table to n strings, 1 to
// MaxSymbolLimit (default DefaultSymbolLimit). Every symbol is in the
// schema, which the writer rewrites before the first block that uses a new
// one: intern what repeats (kinds, names, locations), not unique strings.
func WithSymbolLimit(n int) Option {
	return func(c *config) error {
		if n < 1 || n > MaxSymbolLimit {
			return fmt.Errorf("symbol limit %d is not 1..%d", n, MaxSymbolLimit)
		}
		c.symbolLimit = n
		return nil
	}
}

// symbolTable interns a tracer's strings. Looking up a string interned a
// while ago reads an immutable map through an atomic pointer: no lock, no
// allocation. New strings, and strings interned since that map was made,
// take the mutex: the recent ones are in dirty until enough lookups went
// there (or enough of them piled up) to make a new read map, so copying
// costs O(1) per symbol amortized, as in sync.Map.
type symbolTable struct {
	read   atomic.Pointer[map[string]Symbol]
	mu     sync.Mutex
	dirty  map[string]Symbol // interned since read was made
	misses int               // lookups dirty answered since read was made
	list   atomic.Pointer[[]string]
	bytes  int
	limit  int
	over   atomic.Uint64 // strings that got SymbolOverflow
	onNew  func()        // a symbol was added: the schema must be rewritten
}

func (st *symbolTable) init(limit int, onNew func()) {
	if limit == 0 {
		limit = DefaultSymbolLimit
	}
	st.limit, st.onNew = limit, onNew
	st.dirty = map[string]Symbol{}
	m := map[string]Symbol{}
	st.read.Store(&m)
}

// Intern returns the symbol of s, adding it to the file's symbol table the
// first time. Safe from any goroutine. A string interned before costs a
// map lookup without a lock or an allocation; a new one takes a mutex and
// is in the schema before any block that uses it. Once the table holds
// its limit of strings (WithSymbolLimit) or s is longer than
// MaxSymbolBytes, Intern returns SymbolOverflow, and Stats counts it.
func (t *Tracer) Intern(s string) Symbol {
	if id, ok := (*t.syms.read.Load())[s]; ok {
		return id
	}
	return t.syms.slow(s)
}

func (st *symbolTable) slow(s string) Symbol {
	st.mu.Lock()
	defer st.mu.Unlock()
	if id, ok := (*st.read.Load())[s]; ok { // made while we waited for the lock
		return id
	}
	if id, ok := st.dirty[s]; ok {
		if st.misses++; st.misses >= len(st.dirty) {
			st.promote()
		}
		return id
	}
	var list []string
	if p := st.list.Load(); p != nil {
		list = *p
	}
	if len(list) >= st.limit || len(s) > MaxSymbolBytes || st.bytes+len(s) > maxSymbolTableSize {
		st.over.Add(1)
		return SymbolOverflow
	}
	s = string([]byte(s)) // the table keeps its own copy, not a slice of the caller's buffer
	id := Symbol(len(list))
	// Appended in place when there is room: snapshots hold shorter
	// lengths and never read past them.
	next := append(list, s)
	st.list.Store(&next)
	st.bytes += len(s)
	st.dirty[s] = id
	if len(st.dirty) > 16+len(*st.read.Load())/4 {
		st.promote()
	}
	st.onNew()
	return id
}

// promote makes a new read map of every symbol; the caller holds mu.
func (st *symbolTable) promote() {
	old := *st.read.Load()
	m := make(map[string]Symbol, len(old)+len(st.dirty))
	for k, v := range old {
		m[k] = v
	}
	for k, v := range st.dirty {
		m[k] = v
	}
	st.read.Store(&m)
	clear(st.dirty)
	st.misses = 0
}

// snapshot returns the symbols interned so far, by id.
func (st *symbolTable) snapshot() []string {
	if p := st.list.Load(); p != nil {
		return *p
	}
	return nil
}
