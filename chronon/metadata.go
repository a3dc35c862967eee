package chronon

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/chronon-sim/chronon-go/schema"
)

// Version is the library version recorded in the schema's writer field.
const Version = "0.1.0"

// writerName identifies files written by this library.
var writerName = "chronon-go " + Version + " (" + runtime.Version() + ")"

// rankSources lists, in order of preference, the environment variables that
// launchers set for a process's rank in a parallel run: MPI implementations
// first (they are the most specific), then PMIx (Open MPI 5's prterun, srun
// --mpi=pmix: it sets no size), then torchrun, then Slurm (last: an mpirun
// inside an sbatch script inherits the script's SLURM_PROCID=0). Intel MPI
// and MPICH (Hydra) set PMI_RANK.
var rankSources = []struct {
	name                   string
	rank, localRank, world string
}{
	{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE"},
	{"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
	{"pmix", "PMIX_RANK", "", ""},
	{"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
	{"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
}

// Rank is this process's place in a parallel run, as its launcher set it in
// the environment (DetectRank).
type Rank struct {
	Rank      int    // in the whole run, from 0
	LocalRank int    // on this node; -1 when the launcher did not say
	Size      int    // ranks in the run; 0 when the launcher did not say
	Source    string // openmpi, mvapich, pmi, pmix, torchrun or slurm
	Var       string // the variable the rank was read from
}

// DetectRank returns the rank Create records in the file's metadata (rank,
// rank_source, local_rank, world_size; the label trace_reader gives the
// file's units when it reads several files) and ok, or ok false when no
// launcher variable holds a rank. The variables, first set wins:
// OMPI_COMM_WORLD_RANK (Open MPI), MV2_COMM_WORLD_RANK (MVAPICH), PMI_RANK
// (MPICH, Intel MPI), PMIX_RANK (PMIx: Open MPI 5, srun --mpi=pmix), RANK
// (torchrun), SLURM_PROCID (srun); a value that is not a decimal number
// is skipped. A simulator can give each rank its own unit ids from it, so
// that merging the ranks' files copies their blocks:
//
//	if r, ok := chronon.DetectRank(); ok {
//		opts = append(opts, chronon.WithUnitIDBase(uint16(1+r.Rank*unitsPerRank)))
//	}
func DetectRank() (Rank, bool) { return detectRank(os.Getenv) }

func detectRank(getenv func(string) string) (Rank, bool) {
	for _, s := range rankSources {
		rank, ok := decimal(getenv(s.rank))
		if !ok {
			continue
		}
		r := Rank{Rank: rank, LocalRank: -1, Source: s.name, Var: s.rank}
		if v, ok := decimal(getenv(s.localRank)); ok {
			r.LocalRank = v
		}
		if v, ok := decimal(getenv(s.world)); ok {
			r.Size = v
		}
		return r, true
	}
	return Rank{}, false
}

// decimal reads a launcher's number: decimal digits only (no sign); an
// unset variable ("", also the name of a variable a launcher lacks) is none.
func decimal(v string) (int, bool) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// autoMetadata collects what identifies this run: host, command line, start
// time, process id, Go version, and the rank when a launcher set one.
func autoMetadata(start time.Time, getenv func(string) string) []schema.KeyValue {
	host, _ := os.Hostname()
	md := []schema.KeyValue{
		{Key: "host", Value: host},
		{Key: "command_line", Value: strings.Join(os.Args, " ")},
		{Key: "start_time", Value: start.UTC().Format(time.RFC3339Nano)},
		{Key: "pid", Value: strconv.Itoa(os.Getpid())},
		{Key: "go_version", Value: runtime.Version()},
	}
	if r, ok := detectRank(getenv); ok {
		md = append(md, schema.KeyValue{Key: "rank", Value: strconv.Itoa(r.Rank)}, schema.KeyValue{Key: "rank_source", Value: r.Source})
		if r.LocalRank >= 0 {
			md = append(md, schema.KeyValue{Key: "local_rank", Value: strconv.Itoa(r.LocalRank)})
		}
		if r.Size > 0 {
			md = append(md, schema.KeyValue{Key: "world_size", Value: strconv.Itoa(r.Size)})
		}
	}
	return md
}

// rankKeys are what autoMetadata records with a detected rank: an explicit
// rank replaces them all (they describe the launcher's numbering, not the
// one given), so that a file does not say rank: 7 beside rank_source:
// openmpi and the launcher's world size.
var rankKeys = map[string]bool{"rank_source": true, "local_rank": true, "world_size": true}

// mergeMetadata overlays explicit pairs on automatic ones: an explicit key
// replaces the automatic value, and a key given twice keeps the last value.
//
// An explicit rank also drops the automatic rankKeys (explicit ones stay).
func mergeMetadata(auto []schema.KeyValue, explicit [][2]string) []schema.KeyValue {
	var out []schema.KeyValue
	explicitRank := false
	for _, kv := range explicit {
		explicitRank = explicitRank || kv[0] == "rank"
	}
	for _, kv := range auto {
		if !explicitRank || !rankKeys[kv.Key] {
			out = append(out, kv)
		}
	}
	for _, kv := range explicit {
		replaced := false
		for i := range out {
			if out[i].Key == kv[0] {
				out[i].Value = kv[1]
				replaced = true
			}
		}
		if !replaced {
			out = append(out, schema.KeyValue{Key: kv[0], Value: kv[1]})
		}
	}
	return out
}
