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
// first (they are the most specific), then torchrun, then Slurm.
var rankSources = []struct {
	name                   string
	rank, localRank, world string
}{
	{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"},
	{"mvapich", "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "MV2_COMM_WORLD_SIZE"},
	{"pmi", "PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},
	{"torchrun", "RANK", "LOCAL_RANK", "WORLD_SIZE"},
	{"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},
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
	for _, s := range rankSources {
		rank := getenv(s.rank)
		if rank == "" {
			continue
		}
		md = append(md, schema.KeyValue{Key: "rank", Value: rank}, schema.KeyValue{Key: "rank_source", Value: s.name})
		if v := getenv(s.localRank); v != "" {
			md = append(md, schema.KeyValue{Key: "local_rank", Value: v})
		}
		if v := getenv(s.world); v != "" {
			md = append(md, schema.KeyValue{Key: "world_size", Value: v})
		}
		break
	}
	return md
}

// mergeMetadata overlays explicit pairs on automatic ones: an explicit key
// replaces the automatic value, and a key given twice keeps the last value.
func mergeMetadata(auto []schema.KeyValue, explicit [][2]string) []schema.KeyValue {
	out := append([]schema.KeyValue(nil), auto...)
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
