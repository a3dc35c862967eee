package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
)

// info -v lists the registered categories with their masks, so a user
// knows which bits a unit mask (or a C chronon_unit_set_mask) turns off.
func TestInfoVerboseListsCategories(t *testing.T) {
	mask, err := chronon.RegisterCategory("infotest.mem", "memory\x1b[31m hierarchy")
	require.NoError(t, err)
	f := chronon.MustFormat1[uint64]("infotest access addr={}", chronon.WithCategory(mask))
	path := filepath.Join(t.TempDir(), "cat.ctrace")
	tr, err := chronon.Create(path)
	require.NoError(t, err)
	u, err := tr.NewUnit("core0.l1")
	require.NoError(t, err)
	f.Emit(u, 1, 0x40)
	require.NoError(t, tr.Close())

	code, out, errOut := runTool("info", "-v", path)
	require.Equal(t, 0, code, errOut)
	i := strings.Index(out, "\nCategories:\n")
	require.GreaterOrEqual(t, i, 0, "no Categories section:\n%s", out)
	want := "  0x" + strconv.FormatUint(mask, 16) + " infotest.mem: memory\\x1b[31m hierarchy\n"
	require.Contains(t, out[i:], want)

	code, out, _ = runTool("info", path)
	require.Equal(t, 0, code)
	require.NotContains(t, out, "Categories:", "only -v lists them")
}
