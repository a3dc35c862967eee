package chronon_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

func TestAsyncSpansAreDescribedInTheSchema(t *testing.T) {
	task := chronon.MustAsyncSpan3[chronon.Symbol, chronon.Symbol, uint32]("async.task", "kind={} what={} bytes={}")
	plain := chronon.MustAsyncSpan("async.plain")
	tag := chronon.MustFormat2[uint64, chronon.Symbol]("async tag task={} what={}", chronon.WithSpanID(0))
	tr, path := create(t, chronon.WithTimeBase(chronon.Picoseconds))
	u := units(t, tr, 1)[0]
	kind, what := tr.Intern("req_in"), tr.Intern("ReadReq")
	task.Begin(u, 1000, 7, 0, kind, what, 64)
	plain.Begin(u, 1000, 8, 7)
	tag.Emit(u, 1500, 7, tr.Intern("hit"))
	plain.End(u, 2000, 8)
	task.End(u, 3000, 7)
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	byText := map[string]schema.Format{}
	for _, f := range got.schema.Formats {
		byText[f.Format] = f
	}
	b := byText["async.task begin id={} parent={} kind={} what={} bytes={}"]
	require.Equal(t, schema.KindAsyncBegin, b.Kind)
	require.Equal(t, "async.task", b.Name)
	require.Equal(t, []schema.ArgType{schema.ArgUInt64, schema.ArgUInt64, schema.ArgUInt32, schema.ArgUInt32, schema.ArgUInt32}, b.ArgTypes)
	require.Equal(t, []schema.ArgRole{schema.RoleID, schema.RoleParent, schema.RoleSymbol, schema.RoleSymbol, schema.RolePlain}, b.ArgRoles)
	e := byText["async.task end id={}"]
	require.Equal(t, schema.KindAsyncEnd, e.Kind)
	require.Equal(t, []schema.ArgRole{schema.RoleID}, e.ArgRoles)
	require.Equal(t, "async.task", e.Name)
	require.Equal(t, []schema.ArgRole{schema.RoleID, schema.RoleParent}, byText["async.plain begin id={} parent={}"].ArgRoles)
	require.Equal(t, []schema.ArgRole{schema.RoleID, schema.RoleSymbol}, byText["async tag task={} what={}"].ArgRoles)
	require.Equal(t, schema.KindInstant, byText["async tag task={} what={}"].Kind)
	require.Equal(t, []string{"req_in", "ReadReq", "hit"}, got.schema.Symbols)
	require.Equal(t, schema.Picoseconds, got.schema.TimeBase)
	require.Len(t, got.events, 5)
	// begin: id, parent, then the typed arguments, symbols as their ids.
	require.Equal(t, string(cat(u64(7), u64(0), le32(0), le32(1), le32(64))), got.events[0].args)
}

func TestAsyncRoleValidation(t *testing.T) {
	for name, c := range map[string]struct {
		err string
		reg func() error
	}{
		"begin without id": {"needs one argument with role id", func() error {
			_, err := chronon.NewFormat1[uint64]("av a {}", chronon.WithKind(schema.KindAsyncBegin, schema.RolePlain))
			return err
		}},
		"async with a lane": {"async spans have no lane", func() error {
			_, err := chronon.NewFormat2[uint64, uint32]("av b {} {}", chronon.WithKind(schema.KindAsyncEnd, schema.RoleID, schema.RoleLane))
			return err
		}},
		"id on a counter": {"only async spans and instants have an id", func() error {
			_, err := chronon.NewFormat2[uint64, int64]("av c {} {}", chronon.WithKind(schema.KindCounter, schema.RoleID, schema.RoleValue))
			return err
		}},
		"parent on an end": {"has no parent", func() error {
			_, err := chronon.NewFormat2[uint64, uint64]("av d {} {}", chronon.AsAsyncEnd(0), chronon.WithParent(1))
			return err
		}},
		"two parents": {"more than one argument with role parent", func() error {
			_, err := chronon.NewFormat2[uint64, uint64]("av e {} {}", chronon.WithParent(0), chronon.WithParent(1))
			return err
		}},
		"id and parent on one argument": {"already has role", func() error {
			_, err := chronon.NewFormat1[uint64]("av f {}", chronon.AsAsyncBegin(0), chronon.WithParent(0))
			return err
		}},
		"parent out of range": {"argument 3 but 1 arguments", func() error {
			_, err := chronon.NewFormat1[uint64]("av g {}", chronon.WithParent(3))
			return err
		}},
		"symbol role on another type": {"role symbol needs type uint32", func() error {
			_, err := chronon.NewFormat1[uint64]("av h {}", chronon.WithKind(schema.KindInstant, schema.RoleSymbol))
			return err
		}},
		"a symbol with another role": {"cannot also be symbol", func() error {
			_, err := chronon.NewFormat1[chronon.Symbol]("av i {}", chronon.WithSpanID(0))
			return err
		}},
		"id of string type": {"role id cannot have type string", func() error {
			_, err := chronon.NewFormat1[string]("av j {}", chronon.AsAsyncBegin(0))
			return err
		}},
		"retire without a flow": {"a retire needs one argument with role flow", func() error {
			_, err := chronon.NewFormat1[uint64]("av k {}", chronon.WithKind(schema.KindRetire, schema.RolePlain))
			return err
		}},
		"empty span name": {"span name is empty", func() error {
			_, err := chronon.NewAsyncSpan("")
			return err
		}},
	} {
		t.Run(name, func(t *testing.T) { require.ErrorContains(t, c.reg(), c.err) })
	}
	// A parent on a lane span's begin, a complete span and an instant is fine.
	_, err := chronon.NewFormat3[uint32, uint64, uint64]("av ok {} {} {}", chronon.WithKind(schema.KindSpanBegin, schema.RoleLane, schema.RoleFlow, schema.RoleParent))
	require.NoError(t, err)
	_, err = chronon.NewFormat2[uint64, uint64]("av ok2 {} {}", chronon.WithParent(0), chronon.WithSpanID(1))
	require.NoError(t, err)
	require.Equal(t, "async-begin", schema.KindAsyncBegin.String())
	require.Equal(t, "parent", schema.RoleParent.String())
	require.Equal(t, "symbol", schema.RoleSymbol.String())
}

// Intern returns one id per distinct string, shared by every goroutine,
// and the strings are in the schema of the file; the lookup of a string
// interned before does not allocate.
func TestInternConcurrent(t *testing.T) {
	tr, path := create(t)
	const goroutines, names = 4, 500
	ids := make([][]chronon.Symbol, goroutines)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range names {
					j := (i*7 + g*131 + round) % names // each goroutine in its own order
					s := tr.Intern(fmt.Sprintf("name-%d", j))
					if round == 2 {
						if ids[g] == nil {
							ids[g] = make([]chronon.Symbol, names)
						}
						ids[g][j] = s
					}
				}
			}
		}()
	}
	wg.Wait()
	seen := map[chronon.Symbol]bool{}
	for i := range names {
		for g := 1; g < goroutines; g++ {
			require.Equal(t, ids[0][i], ids[g][i], "name-%d", i)
		}
		require.False(t, seen[ids[0][i]], "two strings share a symbol")
		seen[ids[0][i]] = true
		require.Less(t, uint32(ids[0][i]), uint32(names))
	}
	st := tr.Stats()
	require.Equal(t, uint64(names), st.Symbols)
	require.Zero(t, st.SymbolsOverflowed)

	key := "name-42"
	require.Zero(t, testing.AllocsPerRun(1000, func() { tr.Intern(key) }))
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	require.Len(t, got.schema.Symbols, names)
	for i := range names {
		require.Equal(t, fmt.Sprintf("name-%d", i), got.schema.Symbols[ids[0][i]])
	}
}

// The table is bounded: past its limit, and for strings over
// MaxSymbolBytes, Intern returns SymbolOverflow and Stats counts them;
// readers print it as "[symbol table full]".
func TestInternLimit(t *testing.T) {
	tr, path := create(t, chronon.WithSymbolLimit(3))
	for i := range 3 {
		require.Equal(t, chronon.Symbol(i), tr.Intern(fmt.Sprint(i)))
	}
	require.Equal(t, chronon.SymbolOverflow, tr.Intern("three"))
	require.Equal(t, chronon.Symbol(1), tr.Intern("1"), "interned strings stay")
	require.Equal(t, chronon.SymbolOverflow, tr.Intern(string(make([]byte, chronon.MaxSymbolBytes+1))))
	require.Equal(t, uint64(2), tr.Stats().SymbolsOverflowed)
	f := chronon.MustFormat1[chronon.Symbol]("limit test {}")
	u := units(t, tr, 1)[0]
	f.Emit(u, 1, tr.Intern("four"))
	require.NoError(t, tr.Close())
	r, err := mmapio.Open(path)
	require.NoError(t, err)
	defer r.Close()
	require.Equal(t, []string{"0", "1", "2"}, r.Schema().Symbols)
	for ev := range r.Events(mmapio.Query{}) {
		a, ok := ev.Arg(0)
		require.True(t, ok)
		require.Equal(t, schema.SymbolOverflowText, r.Schema().SymbolText(uint32(a.Uint())))
	}
	_, err = chronon.Create(t.TempDir()+"/x.ctrace", chronon.WithSymbolLimit(0))
	require.ErrorContains(t, err, "symbol limit 0")
	_, err = chronon.Create(t.TempDir()+"/x.ctrace", chronon.WithTimeBase(chronon.TimeBase{}))
	require.ErrorContains(t, err, "time base")
}

// A symbol interned after blocks were written is in the schema on disk
// before the first block that uses it: a reader of the file at any flush
// (what a killed writer leaves) finds every symbol its events name.
func TestSymbolsReachTheSchemaBeforeTheirBlocks(t *testing.T) {
	tr, path := create(t, chronon.WithFlushInterval(0), chronon.WithBlockSize(4096), chronon.WithSchemaReserve(4096))
	u := units(t, tr, 1)[0]
	f := chronon.MustFormat2[uint64, chronon.Symbol]("late symbol i={} s={}")
	for i := range 400 {
		// Long strings: the symbols outgrow the schema's slots (frames).
		f.Emit(u, uint64(i), uint64(i), tr.Intern(fmt.Sprintf("symbol %d %0100d", i, i)))
		if i%40 == 39 {
			require.NoError(t, tr.Flush())
			r, err := mmapio.Open(path)
			require.NoError(t, err)
			n := 0
			for ev := range r.Events(mmapio.Query{}) {
				a, _ := ev.Arg(1)
				s, ok := r.Schema().Symbol(uint32(a.Uint()))
				require.True(t, ok, "event %d names symbol %d, the schema holds %d", ev.Cycle, a.Uint(), len(r.Schema().Symbols))
				require.Equal(t, fmt.Sprintf("symbol %d %0100d", ev.Cycle, ev.Cycle), s)
				n++
			}
			require.NoError(t, r.Err())
			require.Equal(t, i+1, n)
			require.NoError(t, r.Close())
		}
	}
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	require.Len(t, got.schema.Symbols, 400)
	require.Greater(t, got.hdr.SchemaOffset, got.hdr.FirstBlockOffset, "the symbols outgrew the first slots")
	oracleCheck(t, path)
}

func TestTimeBases(t *testing.T) {
	tr, path := create(t, chronon.WithTimeBase(chronon.Picoseconds))
	us := units(t, tr, 2)
	require.NoError(t, us[1].SetTimeBase(chronon.Hz(2_000_000_000)))
	require.ErrorContains(t, us[0].SetTimeBase(chronon.TimeBase{Num: 1}), "zero")
	require.NoError(t, tr.Close())
	got := readBack(t, path)
	require.Equal(t, schema.Picoseconds, got.schema.TimeBase)
	require.Equal(t, schema.Hz(2_000_000_000), got.schema.TimeBaseOf(us[1].ID()))
	require.Equal(t, schema.Picoseconds, got.schema.TimeBaseOf(us[0].ID()))
}
