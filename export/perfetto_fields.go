package export

// Field numbers of the Perfetto protos used here (perfetto/protos/perfetto/
// trace/...). Only stable public fields are used.
const (
	// trace.proto: Trace
	fTracePacket = 1 // repeated TracePacket packet

	// trace_packet.proto: TracePacket
	fPacketTimestamp     = 8  // uint64, ns
	fPacketTrackEvent    = 11 // TrackEvent
	fPacketSequenceID    = 10 // uint32 trusted_packet_sequence_id
	fPacketInternedData  = 12 // InternedData
	fPacketSequenceFlags = 13 // uint32
	fPacketTrackDesc     = 60 // TrackDescriptor
	fPacketFirstOnSeq    = 87 // bool first_packet_on_sequence

	seqIncrementalStateCleared = 1 // SequenceFlags
	seqNeedsIncrementalState   = 2

	// track_descriptor.proto: TrackDescriptor
	fTrackUUID          = 1  // uint64
	fTrackName          = 2  // string
	fTrackProcess       = 3  // ProcessDescriptor (a process track)
	fTrackParentUUID    = 5  // uint64
	fTrackCounter       = 8  // CounterDescriptor (presence makes a counter track)
	fTrackChildOrdering = 11 // ChildTracksOrdering
	fTrackSiblingRank   = 12 // int32 sibling_order_rank

	childOrderingExplicit = 3

	// track_event.proto: TrackEvent
	fEventDebugAnnotations   = 4  // repeated DebugAnnotation
	fEventType               = 9  // Type
	fEventNameIID            = 10 // uint64
	fEventTrackUUID          = 11 // uint64
	fEventCounterValue       = 30 // int64
	fEventDoubleCounter      = 44 // double
	fEventFlowIDs            = 47 // repeated fixed64
	fEventTerminatingFlowIDs = 48 // repeated fixed64

	typeSliceBegin = 1
	typeSliceEnd   = 2
	typeInstant    = 3
	typeCounter    = 4

	// debug_annotation.proto: DebugAnnotation
	fAnnNameIID  = 1 // uint64, interned DebugAnnotationName
	fAnnBool     = 2
	fAnnUint     = 3
	fAnnInt      = 4
	fAnnDouble   = 5
	fAnnString   = 6
	fAnnPointer  = 7
	fInternedIID = 1 // EventName / DebugAnnotationName
	fInternedStr = 2

	// interned_data.proto: InternedData
	fInternedEventNames     = 2 // repeated EventName
	fInternedAnnotationName = 3 // repeated DebugAnnotationName
)

// ProcessDescriptor (WithProcesses).
const (
	fProcessPid  = 1 // int32
	fProcessName = 6 // string
)
