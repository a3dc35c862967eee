// Package runs tells which run each unit of a trace merged from several
// (rewrite.Merge, trace_reader merge, or the temporary merge of
// a multi-file stats/export) belongs to, so that flows are joined only
// within a run: the same flow id in two simulations is two instructions.
//
// A run is what the exporter draws as a process: the units named
// "<label>/<unit>" for one label. The labels are the caller's (the files'
// labels, mmapio.Labels) or, for a merged file read on its own, those of
// its metadata: rewrite.Merge writes "<label>/file" for every input, so the
// same file read later has the same runs as the multi-file read that made
// it.
package runs

import (
	"strings"

	"github.com/chronon-sim/chronon-go/schema"
)

// Labels returns the labels of the runs a merged trace's metadata names
// ("<label>/file" keys, label without a "/"), in input order, or nil.
// The key of an input that was itself merged ("r0/a/file") is that input's
// own metadata and names no run of this file.
func Labels(md []schema.KeyValue) []string {
	var labels []string
	for _, kv := range md {
		label, ok := strings.CutSuffix(kv.Key, "/file")
		if !ok || label == "" || strings.Contains(label, "/") {
			continue
		}
		dup := false
		for _, l := range labels {
			dup = dup || l == label
		}
		if !dup {
			labels = append(labels, label)
		}
	}
	return labels
}

// Of returns the run of each unit id (the index of its label: the part of
// its name before the first "/"), or nil when there are fewer than two
// labels: every unit is then in run 0. A unit whose name carries no known
// label (unit 0, unnamed units) is in run 0. name gives a unit's name by
// id (mmapio.Reader.UnitName).
func Of(units []schema.Unit, name func(uint16) string, labels []string) []uint16 {
	if len(labels) < 2 {
		return nil
	}
	index := make(map[string]uint16, len(labels))
	for i, l := range labels {
		if _, ok := index[l]; !ok && i < 1<<16 {
			index[l] = uint16(i)
		}
	}
	of := make([]uint16, 1<<16)
	for _, u := range units {
		label, _, ok := strings.Cut(name(u.ID), "/")
		if ok {
			of[u.ID] = index[label]
		}
	}
	return of
}

// Count is the number of runs of labels: at least 1.
func Count(labels []string) int { return max(1, min(len(labels), 1<<16)) }

// FlowID is the flow id an export writes for flow id of run run: the id
// itself in run 0 (a single run's output is unchanged), else the id with
// the run in its top 16 bits, so that the runs' ids below 2^48 (sequence
// numbers) never meet.
func FlowID(run uint16, id uint64) uint64 {
	return id ^ uint64(run)<<48
}
