package workload

import "runtime"

// SimMemory is the memory a stand-in simulation keeps for itself, so that
// the tracer's memory is measured against a simulation's, not against an
// almost empty process. A Go simulator such as Akita holds a live heap
// (components, buffers, queues, messages in flight) and allocates and drops
// objects for every message and task: the garbage collector's heap goal is
// then about twice the live heap (GOGC=100), and memory a tracer keeps on
// the Go heap raises that goal by twice its own size, which a stand-in of a
// few MiB does not show.
type SimMemory struct {
	// LiveMiB is a live heap of pointerful objects held through the run
	// (the collector marks it every cycle), in MiB.
	LiveMiB int
	// GarbagePerEvent is how many bytes the engine allocates and drops for
	// every hook event, as 64-byte message objects kept in flight for a
	// while (1,024 events) before they are dropped.
	GarbagePerEvent int
}

// AkitaMemory is the task stand-in's memory shaped like Akita's
// 150-component scenario, whose untraced run peaks at 34 MB RSS: with
// this live heap (on top of the engine's own few MiB) and churn, the
// untraced stand-in peaks at about 33 MB (tracegen --workload tasks-none,
// 2.86M hook events). The garbage per event stands for a message, an
// engine event and a task id string per hook call.
var AkitaMemory = SimMemory{LiveMiB: 6, GarbagePerEvent: 256}

// simNode is one object of the live heap or of the garbage: pointers for
// the collector to follow, and payload.
type simNode struct {
	next, peer *simNode
	payload    [6]uint64
}

const simNodeSize = 64

// simHeap holds a simulation's memory while it runs.
type simHeap struct {
	live     []*simNode
	inflight []*simNode // a ring of recent messages: each is garbage once overwritten
	pos      int
	per      int // message objects per event
}

func newSimHeap(m SimMemory) *simHeap {
	h := &simHeap{per: (m.GarbagePerEvent + simNodeSize - 1) / simNodeSize}
	n := m.LiveMiB << 20 / simNodeSize
	if n > 0 {
		// Chains of 64 nodes, cross-linked, as a simulator's structures are.
		h.live = make([]*simNode, 0, n/64+1)
		var prev *simNode
		for i := range n {
			nd := &simNode{next: prev, peer: prev}
			nd.payload[0] = uint64(i)
			if i%64 == 63 {
				h.live = append(h.live, nd)
				nd = nil
			}
			prev = nd
		}
	}
	if h.per > 0 {
		h.inflight = make([]*simNode, 1024)
	}
	return h
}

// event allocates one hook event's garbage (the engine's goroutine).
func (h *simHeap) event(id uint64) {
	if h.per == 0 {
		return
	}
	var m *simNode
	for range h.per {
		m = &simNode{next: m}
		m.payload[0] = id
	}
	h.inflight[h.pos] = m
	h.pos = (h.pos + 1) & (len(h.inflight) - 1)
}

// done keeps the live heap alive to the end of the run.
func (h *simHeap) done() { runtime.KeepAlive(h.live) }
