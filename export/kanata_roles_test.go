package export

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/internal/ctracetest"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// A crafted schema may put a flow, duration or dependency role on an
// argument chronon would refuse it for (a double) or on two arguments; the
// export uses the first integer argument with the role, never a float's
// bits as an instruction id.
func TestKanataCraftedRoles(t *testing.T) {
	u64, f64 := schema.ArgUInt64, schema.ArgDouble
	sch := &schema.Schema{
		Units: []schema.Unit{{ID: 1, Name: "core0.rename"}},
		Formats: []schema.Format{
			{ID: 1, Format: "stage seq={} dur={}", ArgTypes: []schema.ArgType{u64, u64},
				Kind: schema.KindSpanComplete, ArgRoles: []schema.ArgRole{schema.RoleFlow, schema.RoleDuration}, Name: "rn"},
			// The double with the role comes after the integer one: the
			// last argument with a role used to win.
			{ID: 2, Format: "dep seq={} on={} weight={}", ArgTypes: []schema.ArgType{u64, u64, f64},
				ArgRoles: []schema.ArgRole{schema.RoleFlow, schema.RoleDepends, schema.RoleDepends}},
			// A flow role only on a double: the event belongs to no instruction.
			{ID: 3, Format: "odd x={}", ArgTypes: []schema.ArgType{f64},
				ArgRoles: []schema.ArgRole{schema.RoleFlow}},
		},
	}
	path := filepath.Join(t.TempDir(), "roles.ctrace")
	f, err := os.Create(path)
	require.NoError(t, err)
	w, err := ctracetest.NewWriter(f, sch, ctracetest.Options{})
	require.NoError(t, err)
	le := binary.LittleEndian
	add := func(cycle uint64, id uint32, args ...uint64) {
		b := make([]byte, 0, 24)
		for _, a := range args {
			b = le.AppendUint64(b, a)
		}
		require.NoError(t, w.Add(schema.Record{Cycle: cycle, FormatID: id, SourceID: 1, ArgCount: uint8(len(args))}, b))
	}
	add(1, 1, 1, 5) // instruction 1 (I 0)
	add(2, 1, 2, 5) // instruction 2 (I 1)
	add(3, 2, 2, 1, math.Float64bits(2.0))
	add(4, 3, math.Float64bits(1.0))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())

	res, data, _ := exportKanataLog(t, path, mmapio.Query{})
	require.Contains(t, string(data), "\nW\t1\t0\t0\n", "instruction 2 depends on instruction 1 (its integer argument)")
	require.Equal(t, uint64(1), res.Dependencies)
	require.Equal(t, uint64(0), res.DependenciesDropped)
	require.Equal(t, 2, strings.Count(string(data), "\nI\t"), "the double flow makes no instruction")
}
