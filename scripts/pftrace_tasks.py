#!/usr/bin/python3
"""Task figures of a Perfetto trace exported from a task trace
(scripts/taskscompare.sh): the tracks of the busiest unit, and the share of
child tasks whose arrow reaches their parent.

usage: pftrace_tasks.py FILE.pftrace

Reads the file with the protoc bindings of ../shared/perfetto's
perfetto_trace.proto that check_pftrace.py generates (an independent
decoder, not the exporter's), replays its flows as trace processor does
(flow_ids: a flow begins at a slice or steps from its previous slice;
terminating_flow_ids: it ends there), and counts the slices and instants
with a "parent" argument other than 0 whose incoming arrow comes from the
slice whose "id" argument is that parent. A unit is a track whose name
path matches no other track's prefix use; the busiest is the one with the
most tracks below it. Prints one line of JSON.
"""
import collections, glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_pb():
    dirs = sorted(glob.glob("/tmp/pftrace-pb-*/perfetto_trace_pb2.py"))
    if not dirs:
        sys.exit("run ../shared/perfetto/check_pftrace.py once first: it generates the bindings")
    sys.path.insert(0, os.path.dirname(dirs[-1]))
    import perfetto_trace_pb2
    return perfetto_trace_pb2


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        if c < 0x80:
            return v, i
        s += 7


def main():
    pb = load_pb()
    data = open(sys.argv[1], "rb").read()
    tracks = {}  # uuid -> (name, parent)
    names, anns = {}, {}
    stacks = collections.defaultdict(list)
    sid, spar = [], []  # per slice: its id and parent arguments
    active = {}
    arrow_from = {}  # child slice -> source slice
    i, n = 0, len(data)
    TE = pb.TrackEvent
    while i < n:
        key, i = varint(data, i)
        ln, i = varint(data, i)
        p = pb.TracePacket()
        p.ParseFromString(data[i:i + ln])
        i += ln
        if p.sequence_flags & 1:
            names, anns = {}, {}
        if p.HasField("interned_data"):
            for e in p.interned_data.event_names:
                names[e.iid] = e.name
            for e in p.interned_data.debug_annotation_names:
                anns[e.iid] = e.name
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            tracks[td.uuid] = (td.name, td.parent_uuid if td.HasField("parent_uuid") else None)
        if not p.HasField("track_event"):
            continue
        ev = p.track_event
        if ev.type == TE.TYPE_SLICE_END:
            continue
        if ev.type not in (TE.TYPE_SLICE_BEGIN, TE.TYPE_INSTANT):
            continue
        args = {}
        for a in ev.debug_annotations:
            nm = anns.get(a.name_iid, a.name)
            if nm in ("id", "parent"):
                args[nm] = a.uint_value or a.int_value
        k = len(sid)
        sid.append(args.get("id", 0))
        spar.append(args.get("parent", 0))
        for f in ev.flow_ids:
            if f in active:
                arrow_from[k] = active[f]
            active[f] = k
        for f in ev.terminating_flow_ids:
            if f in active:
                arrow_from[k] = active.pop(f)
    children = reached = 0
    for k, par in enumerate(spar):
        if par == 0:
            continue
        children += 1
        src = arrow_from.get(k)
        if src is not None and sid[src] == par:
            reached += 1
    # tracks below each track
    below = collections.Counter()
    for u, (nm, par) in tracks.items():
        seen = set()
        while par is not None and par not in seen:
            seen.add(par)
            below[par] += 1
            par = tracks[par][1] if par in tracks else None

    def path(u):
        parts = []
        while u in tracks and tracks[u][1] is not None:
            parts.append(tracks[u][0])
            u = tracks[u][1]
        return ".".join(reversed(parts))
    # units: tracks whose children are rows ("lane N", "async N") or leaves of the unit paths
    units = {u: c for u, c in below.items() if any(tracks[t][1] == u and (tracks[t][0].startswith("lane ") or tracks[t][0].startswith("async ")) for t in tracks)}
    busiest = max(units, key=lambda u: units[u]) if units else None
    print(json.dumps({
        "file": os.path.basename(sys.argv[1]),
        "tracks": len(tracks),
        "busiest_unit": path(busiest) if busiest else None,
        "busiest_unit_tracks": units.get(busiest, 0),
        "children": children,
        "children_reaching_parent": reached,
        "share": round(reached / children, 4) if children else None,
    }))


if __name__ == "__main__":
    main()
