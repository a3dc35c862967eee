package chronon_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
)

// rankVars are every variable DetectRank reads: a test sets them all, so
// that the environment it runs in (a Slurm job) does not leak in.
var rankVars = []string{
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
	"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE",
	"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE", "PMIX_RANK",
	"RANK", "LOCAL_RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS",
}

func setRankEnv(t *testing.T, env map[string]string) {
	for _, v := range rankVars {
		t.Setenv(v, env[v])
	}
}

// DetectRank reads the launchers' variables in their order of preference:
// PMIx (no size, no local rank) before torchrun and Slurm, after the MPI
// implementations' own; a value that is not a number is skipped.
func TestDetectRank(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want chronon.Rank
		ok   bool
	}{
		{map[string]string{}, chronon.Rank{}, false},
		{map[string]string{"PMIX_RANK": "5", "SLURM_PROCID": "0", "SLURM_NTASKS": "1", "RANK": "9"},
			chronon.Rank{Rank: 5, LocalRank: -1, Size: 0, Source: "pmix", Var: "PMIX_RANK"}, true},
		{map[string]string{"PMIX_RANK": "5", "OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_SIZE": "8"},
			chronon.Rank{Rank: 5, LocalRank: 1, Size: 8, Source: "openmpi", Var: "OMPI_COMM_WORLD_RANK"}, true},
		{map[string]string{"PMI_RANK": "3", "PMI_SIZE": "4", "PMIX_RANK": "7"},
			chronon.Rank{Rank: 3, LocalRank: -1, Size: 4, Source: "pmi", Var: "PMI_RANK"}, true},
		{map[string]string{"RANK": "x1", "SLURM_PROCID": "2", "SLURM_LOCALID": "0", "SLURM_NTASKS": "x"},
			chronon.Rank{Rank: 2, LocalRank: 0, Size: 0, Source: "slurm", Var: "SLURM_PROCID"}, true},
	} {
		setRankEnv(t, c.env)
		got, ok := chronon.DetectRank()
		require.Equal(t, c.ok, ok, c.env)
		require.Equal(t, c.want, got, c.env)
	}
}

// Create records what DetectRank found; WithMetadata("rank", ...) replaces
// it and drops the launcher's rank_source, local_rank and world_size.
func TestExplicitRankReplacesDetected(t *testing.T) {
	setRankEnv(t, map[string]string{"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "0", "OMPI_COMM_WORLD_SIZE": "16"})
	meta := func(opts ...chronon.Option) map[string]string {
		path := filepath.Join(t.TempDir(), "r.ctrace")
		tr, err := chronon.Create(path, opts...)
		require.NoError(t, err)
		require.NoError(t, tr.Close())
		r, err := mmapio.Open(path)
		require.NoError(t, err)
		defer r.Close()
		m := map[string]string{}
		for _, kv := range r.Metadata() {
			m[kv.Key] = kv.Value
		}
		return m
	}
	m := meta()
	require.Equal(t, "2", m["rank"])
	require.Equal(t, "openmpi", m["rank_source"])
	require.Equal(t, "16", m["world_size"])

	m = meta(chronon.WithMetadata("rank", "7"))
	require.Equal(t, "7", m["rank"])
	for _, k := range []string{"rank_source", "local_rank", "world_size"} {
		require.NotContains(t, m, k)
	}
	require.Contains(t, m, "host", "the rest of the automatic metadata stays")

	m = meta(chronon.WithMetadata("rank", "7"), chronon.WithMetadata("world_size", "32"))
	require.Equal(t, "32", m["world_size"], "an explicit world_size stays")
}
