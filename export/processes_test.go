package export

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// mergedRuns merges two pipesim runs (as trace_reader does for several
// files) and returns the merged trace and the runs' labels.
func mergedRuns(t *testing.T) (string, []string) {
	return mergeTraces(t, []string{pipesimTrace(t, 50), pipesimTrace(t, 50)}, []string{"r0.ctrace", "r1.ctrace"})
}

// Each run of a merged trace is a process: a Perfetto process track
// (ProcessDescriptor with its own pid) whose children are the run's units.
func TestProcessesPerfetto(t *testing.T) {
	trace, labels := mergedRuns(t)
	require.Equal(t, []string{"r0", "r1"}, labels)
	_, out := exportFile(t, trace, mmapio.Query{}, WithProcesses(labels))
	tr, err := validatePerfetto(out)
	require.NoError(t, err)

	b, err := os.ReadFile(out)
	require.NoError(t, err)
	procs := map[uint64]string{} // track uuid -> process name
	pids := map[uint64]bool{}
	require.NoError(t, eachField(b, func(_ protowire.Number, _ protowire.Type, _ uint64, pkt []byte) error {
		return eachField(pkt, func(num protowire.Number, _ protowire.Type, _ uint64, desc []byte) error {
			if num != fPacketTrackDesc {
				return nil
			}
			var uuid uint64
			var proc []byte
			eachField(desc, func(n protowire.Number, _ protowire.Type, v uint64, bs []byte) error {
				switch n {
				case fTrackUUID:
					uuid = v
				case fTrackProcess:
					proc = bs
				}
				return nil
			})
			if proc != nil {
				var pid uint64
				var name string
				eachField(proc, func(n protowire.Number, _ protowire.Type, v uint64, bs []byte) error {
					switch n {
					case fProcessPid:
						pid = v
					case fProcessName:
						name = string(bs)
					}
					return nil
				})
				require.Greater(t, pid, uint64(1))
				require.False(t, pids[pid], "pid %d twice", pid)
				pids[pid] = true
				procs[uuid] = name
			}
			return nil
		})
	}))
	require.ElementsMatch(t, labels, []string{procs[firstKey(procs, "r0")], procs[firstKey(procs, "r1")]})
	// Every unit track hangs under its run's process, with the run's
	// unlabelled dotted path; the process has no parent.
	under := map[string]int{}
	for _, tk := range tr.tracks {
		if _, isProc := procs[tk.uuid]; isProc {
			require.Zero(t, tk.parent)
			continue
		}
		for p := tk; p != nil && p.parent != 0; p = tr.tracks[p.parent] {
			if name, ok := procs[p.parent]; ok {
				under[name]++
				require.NotContains(t, tk.name, "/")
			}
		}
	}
	require.Positive(t, under["r0"])
	require.Equal(t, under["r0"], under["r1"])
}

func firstKey(m map[uint64]string, v string) uint64 {
	for k, x := range m {
		if x == v {
			return k
		}
	}
	return 0
}

// In Chrome JSON each run is a pid named after its label.
func TestProcessesChromeJSON(t *testing.T) {
	trace, labels := mergedRuns(t)
	_, out := exportFile(t, trace, mmapio.Query{}, WithFormat(FormatChromeJSON), WithProcesses(labels))
	_, err := validateChrome(out)
	require.NoError(t, err)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	procName := map[float64]string{}
	threads := map[string]map[string]bool{} // process -> thread names
	for _, e := range doc.TraceEvents {
		if e["ph"] == "M" && e["name"] == "process_name" {
			procName[e["pid"].(float64)] = e["args"].(map[string]any)["name"].(string)
		}
	}
	for _, e := range doc.TraceEvents {
		if e["ph"] == "M" && e["name"] == "thread_name" {
			p := procName[e["pid"].(float64)]
			if threads[p] == nil {
				threads[p] = map[string]bool{}
			}
			threads[p][e["args"].(map[string]any)["name"].(string)] = true
		}
	}
	require.Len(t, procName, 3) // the simulation's, r0, r1
	require.NotEmpty(t, threads["r0"])
	require.Equal(t, threads["r0"], threads["r1"])
	for name := range threads["r0"] {
		require.NotContains(t, name, "/")
	}
}
