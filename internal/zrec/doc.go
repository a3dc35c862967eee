// Package zrec is a record-aware zstd encoder for trace blocks. The
// writer (chronon) compresses with it, and so does trace_reader merge
// (mmapio) when it re-encodes blocks whose ids it renumbered; it sits at
// the module root because chronon and mmapio never import each other.
//
// A trace block is a concatenation of events, each
//
//	[args_size u16][cycle u64][format_id u32][category u32][source_id u16]
//	[arg_count u8][5 zero bytes][args: args_size bytes]
//
// (little-endian, 26+args_size bytes). Encoder.EncodeAll turns one block
// into one standard zstd frame (RFC 8878) that libzstd, klauspost or any
// other decoder returns byte for byte. Input that is not a clean sequence of
// events is still encoded correctly, just less tightly.
//
// # Why structural matching
//
// Generic zstd encoders hash every byte position to find matches; on our
// data that caps them at ~250-350 MB/s per core. But an event is almost a
// copy of the previous event of the same format: same size, same format,
// category and source, a cycle that moved a little, some args that changed.
// So the match finder (match.go) needs no hashing at all: a 256-slot table
// keyed by format_id (tag-checked) gives, in O(1), the previous event of
// the same format in this frame; the current event is compared with it at
// distance d, giving a 64-bit mask of equal bytes. Equal runs of >= 3
// bytes (zstd's minimum match) become matches with offset d; the other
// bytes become literals. A run that reaches the end of an event and
// continues at the start of the next one with the same d (typical: the
// last args of one event and the args_size of the next are both
// unchanged) is merged into one match, so a steady stream of events costs
// one to three sequences per event. Events of a format seen for the first
// time are compared with the immediately preceding event instead (records
// share cycle, category and source bytes). For events of different sizes
// only the common prefix is compared. Each sequence is coded (repeat
// offsets, symbol codes, extra bits, histograms) as it is found.
//
// # Assembly
//
// On amd64 the three loops that take most of the time are in assembly,
// each with its Go version kept as the portable path (other architectures,
// the noasm build tag) and as the reference the tests compare it with byte
// for byte: the match finder's fast path (match_amd64.s: events of up to
// 56 bytes, of their predecessor's size, away from the end of the input;
// SSE2 byte compares, the runs walked by their start and end bits, no
// bounds checks), entered and left at event boundaries, the FSE sequence
// loop (seqs_amd64.s; with BMI2's SHLX/SHRX/BZHI where the CPU has them,
// two sequences an iteration with one check of the output position while
// it is 24 bytes or more before the limit, where both checks would pass)
// and the Huffman stream loop (literals_amd64.s, BMI2). The Go compiler
// spilled half of those loops' registers and moved every shift count
// through CX: about twice the instructions.
//
// The match loop codes the usual sequence inline: 1 to 15 literals, then
// a match of up to 130 bytes at the repeated distance, its match length
// code and extra bits from tables. A test of the length against 35 bytes,
// which sent the longer ones to the full coder, mispredicted on the
// pipeline workload, whose matches across events vary in length. Its
// compares stay 16 bytes wide: 32-byte AVX2 compares saved 10
// instructions an event but no time, and cost the SSE/AVX transition
// penalty on every literal copy unless the upper halves were cleared
// after each event.
//
// The walk over an event's runs keeps its loop-exit branch. Pipeline
// events have two, three or four runs, and a branch simulator (cachegrind)
// counts one mispredicted exit an event; a walk that coded the second run
// without that branch (its sequence, literal copy and counts always
// written, advanced by 0 or 1, the next run taken with conditional moves)
// cut the simulated mispredicts from 1.86 to 0.91 an event for 24 more
// instructions, and made the encoder 6% slower on the pipeline workload
// and 9% on W1, measured side by side in one process. The conditional
// moves put each event's literal and sequence positions behind the
// previous event's compares, which the predicted branch did not; that,
// and that giving each run its own exit branch changed nothing
// measurable, suggest the CPU predicts these exits better than the
// simulated predictor (this VM has no hardware counters to confirm it).
//
// Everything after match finding is ordinary zstd entropy coding; the
// format is fixed by the decoder, so that part is precise rather than
// clever.
//
// # Frame layout (frame.go, encoder.go)
//
// The frame header has Single_Segment_flag set (the window is the whole
// content, so matches may reach back to any earlier byte of the frame), the
// content size in the smallest field that holds it, Content_Checksum_flag
// set and no dictionary; the frame ends with the low 32 bits of XXH64 of
// the content (xxh64.go), which libzstd and klauspost verify when they
// decode. Content is cut into zstd blocks of at most 128 KiB
// (Block_Maximum_Size); cuts are made on event boundaries, which is always
// possible because an event is at most 65561 bytes, so no match is ever
// split. A block whose compressed form is not smaller than its content is
// stored raw. Empty input gives a frame with one empty raw block.
//
// # Literals section (literals.go)
//
// Literals are Huffman coded with a table built for the block: the
// histogram is counted once, the present symbols sorted by count (a radix
// sort), the code lengths computed in place (Moffat and Katajainen) and
// limited to 11 bits, and the exact size is known before anything is
// written, so choosing between raw and coded literals costs no trial
// encoding. The table description is FSE compressed by klauspost's fse
// package (as its huff0 does) or written 4 bits a weight. One stream is
// used up to 1023 literals (the 10-bit single-stream header, and libzstd
// refuses 4 streams for tiny inputs), four streams above, with the 4- or
// 5-byte header as the sizes require. Single-valued literals are stored
// as RLE; fewer than 32 are always raw. With WithLiteralMinGain(k) (what
// chronon uses at levels 1 to 3) literals are also stored raw when coding
// them would save less than 1/2^k of them: random argument bytes cost a
// table and four streams for a few percent.
//
// Two shortcuts keep the Huffman side cheap without changing its output.
// Before a code is built, a lower bound of the literals' order-0 entropy
// (from the histogram and a 512-entry log table) is checked against what
// the coding must save: no prefix code beats the entropy, so when even it
// saves too little the literals go raw without sorting and building (a
// third of the pipeline workload's blocks). The stream loop checks once
// that the output has room for the longest stream the literals can make,
// then stores without bounds checks.
//
// # Sequences section (sequences.go, fse.go, bitwriter.go)
//
// Each sequence is (literal length, match length, offset), mapped to LL,
// ML and OF codes plus extra bits (codes.go). For each of the three code
// types the encoder picks, from the block's histogram:
//   - RLE when only one code occurs (zero bits per sequence);
//   - otherwise FSE_Compressed with its own normalized counts (accuracy log
//     5..8, chosen from the sequence count; the format allows 9 for LL/ML,
//     which saved 0.01-0.06% for twice the table building) and the
//     table description, or Predefined when an estimate of the bit cost
//     says the default distribution is cheaper than describing a table
//     (few sequences).
//
// The FSE tables are built with the format's exact cell-spreading rule so
// the decoder's table (rebuilt from the counts alone) matches ours. A
// table depends on its normalized counts alone, and a unit's blocks often
// repeat them (a quarter of the pipeline workload's FSE tables, a third of
// W1's): the last eight tables built are kept with their counts, and a
// repeat is copied instead of built. All
// sequences go into one backward bitstream: states start from the last
// sequence, each earlier sequence writes its OF, ML, LL state transitions
// and then its LL, ML, OF extra bits, the three final states follow and an
// end-mark bit closes the stream. The 64-bit bit container is spilled after
// every sequence, and in between when a sequence has long extra bits.
// Repeat mode (reusing the previous block's tables) is not used.
//
// # Repeat offsets
//
// The encoder mirrors the decoder's three repeat offsets exactly (initial
// 1, 4, 8; carried across the blocks of a frame; untouched by raw blocks,
// so they are rolled back when a block falls back to raw). With literals
// before the match, Offset_Value 1..3 select rep0..rep2; with none they
// select rep1, rep2 and rep0-1; every other offset is sent as offset+3 and
// pushed in front. In event data the distance d rarely changes within a
// unit's block, so almost every sequence is "rep0" and the offset code
// table degenerates to RLE or near-RLE; rep1/rep2 pay off when two formats
// alternate.
//
// # Measured
//
// BenchmarkEncodeWorkloads compresses the writer's own blocks (2M events of
// W1 and of the pipeline workload, as chronon's level 3 does);
// BenchmarkEncode compares with klauspost's generic encoder on per-unit
// 64 KiB W1 blocks; docs/performance.md has the figures.
//
//	go test -run NONE -bench 'BenchmarkEncode' -benchtime 5x -count 3 ./internal/zrec
//
// # Cost and limits
//
// An Encoder keeps all scratch space between calls (tables, sequence and
// literal buffers sized for one 128 KiB block, Huffman scratch): once warm,
// EncodeAll allocates nothing if dst has MaxEncodedSize(len(src)) bytes of
// spare capacity. It is not safe for concurrent use; keep one per worker.
//
// Matches are only ever found against the previous event of the same
// format (or the preceding event); repeated content elsewhere (e.g. the
// same string arg two events back) is not found, and a unit whose events
// change format every time compresses worse than with a generic encoder.
// Offsets are limited to 1 GiB. Frames beyond 128 MiB carry a window that
// libzstd refuses by default (its window-log limit), so keep blocks
// small; we use 4 KiB to 1 MiB.
package zrec
