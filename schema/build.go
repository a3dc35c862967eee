package schema

import (
	"encoding/binary"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/chronon-sim/chronon-go/schema/fb"
)

// BuildSchema encodes s as the schema section: a FlatBuffer with root
// TraceSchema and file identifier "CTRC". The result aliases b's buffer and is
// valid until b is reset.
func BuildSchema(b *flatbuffers.Builder, s *Schema) []byte {
	b.Reset()
	formats := make([]flatbuffers.UOffsetT, len(s.Formats))
	for i := range s.Formats {
		formats[i] = buildFormat(b, &s.Formats[i])
	}
	cats := make([]flatbuffers.UOffsetT, len(s.Categories))
	for i, c := range s.Categories {
		name, desc := b.CreateString(c.Name), b.CreateString(c.Description)
		fb.CategoryEntryStart(b)
		fb.CategoryEntryAddName(b, name)
		fb.CategoryEntryAddDescription(b, desc)
		fb.CategoryEntryAddMask(b, c.Mask)
		cats[i] = fb.CategoryEntryEnd(b)
	}
	units := make([]flatbuffers.UOffsetT, len(s.Units))
	for i, u := range s.Units {
		name, typ := b.CreateString(u.Name), b.CreateString(u.TypeName)
		tb := buildTimeBase(b, u.TimeBase)
		fb.UnitEntryStart(b)
		fb.UnitEntryAddId(b, u.ID)
		fb.UnitEntryAddName(b, name)
		fb.UnitEntryAddTypeName(b, typ)
		if tb != 0 {
			fb.UnitEntryAddTimeBase(b, tb)
		}
		units[i] = fb.UnitEntryEnd(b)
	}
	meta := make([]flatbuffers.UOffsetT, len(s.Metadata))
	for i, kv := range s.Metadata {
		k, v := b.CreateString(kv.Key), b.CreateString(kv.Value)
		fb.KeyValueStart(b)
		fb.KeyValueAddKey(b, k)
		fb.KeyValueAddValue(b, v)
		meta[i] = fb.KeyValueEnd(b)
	}
	formatsVec := offsetVector(b, formats, fb.TraceSchemaStartFormatsVector)
	catsVec := offsetVector(b, cats, fb.TraceSchemaStartCategoriesVector)
	unitsVec := offsetVector(b, units, fb.TraceSchemaStartUnitsVector)
	metaVec := offsetVector(b, meta, fb.TraceSchemaStartMetadataVector)
	sim := b.CreateString(s.SimulationName)
	writer := b.CreateString(s.Writer)
	timeBase := buildTimeBase(b, s.TimeBase)
	var symbols flatbuffers.UOffsetT
	if len(s.Symbols) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(s.Symbols))
		for i, str := range s.Symbols {
			offs[i] = b.CreateString(str)
		}
		symbols = offsetVector(b, offs, fb.TraceSchemaStartSymbolsVector)
	}

	fb.TraceSchemaStart(b)
	version := s.Version
	if version == 0 {
		version = 1
	}
	fb.TraceSchemaAddVersion(b, version)
	fb.TraceSchemaAddFormats(b, formatsVec)
	fb.TraceSchemaAddCategories(b, catsVec)
	fb.TraceSchemaAddUnits(b, unitsVec)
	fb.TraceSchemaAddSimulationName(b, sim)
	fb.TraceSchemaAddConfigHash(b, s.ConfigHash)
	fb.TraceSchemaAddMetadata(b, metaVec)
	fb.TraceSchemaAddWriter(b, writer)
	if timeBase != 0 {
		fb.TraceSchemaAddTimeBase(b, timeBase)
	}
	if symbols != 0 {
		fb.TraceSchemaAddSymbols(b, symbols)
	}
	root := fb.TraceSchemaEnd(b)
	b.FinishWithFileIdentifier(root, []byte(SchemaIdentifier))
	return b.FinishedBytes()
}

// buildTimeBase encodes a TimeBase table; 0 (no table) for a zero one.
func buildTimeBase(b *flatbuffers.Builder, tb TimeBase) flatbuffers.UOffsetT {
	if tb.IsZero() {
		return 0
	}
	fb.TimeBaseStart(b)
	fb.TimeBaseAddNum(b, tb.Num)
	fb.TimeBaseAddDen(b, tb.Den)
	return fb.TimeBaseEnd(b)
}

func buildFormat(b *flatbuffers.Builder, f *Format) flatbuffers.UOffsetT {
	text, file, name := b.CreateString(f.Format), b.CreateString(f.File), b.CreateString(f.Name)
	fb.FormatEntryStartArgTypesVector(b, len(f.ArgTypes))
	for i := len(f.ArgTypes) - 1; i >= 0; i-- {
		b.PrependInt8(int8(f.ArgTypes[i]))
	}
	types := b.EndVector(len(f.ArgTypes))
	var roles, names flatbuffers.UOffsetT
	if len(f.ArgRoles) > 0 {
		fb.FormatEntryStartArgRolesVector(b, len(f.ArgRoles))
		for i := len(f.ArgRoles) - 1; i >= 0; i-- {
			b.PrependByte(byte(f.ArgRoles[i]))
		}
		roles = b.EndVector(len(f.ArgRoles))
	}
	if len(f.ArgNames) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(f.ArgNames))
		for i, n := range f.ArgNames {
			offs[i] = b.CreateString(n)
		}
		names = offsetVector(b, offs, fb.FormatEntryStartArgNamesVector)
	}
	fb.FormatEntryStart(b)
	fb.FormatEntryAddId(b, f.ID)
	fb.FormatEntryAddFormatString(b, text)
	fb.FormatEntryAddFile(b, file)
	fb.FormatEntryAddLine(b, f.Line)
	fb.FormatEntryAddArgTypes(b, types)
	fb.FormatEntryAddIsLog(b, f.IsLog)
	fb.FormatEntryAddLogLevel(b, fb.LogLevel(f.LogLevel))
	if f.Kind != KindInstant {
		fb.FormatEntryAddKind(b, fb.EventKind(f.Kind))
	}
	if roles != 0 {
		fb.FormatEntryAddArgRoles(b, roles)
	}
	if f.Name != "" {
		fb.FormatEntryAddName(b, name)
	}
	if f.Category != 0 {
		fb.FormatEntryAddCategory(b, f.Category)
	}
	if names != 0 {
		fb.FormatEntryAddArgNames(b, names)
	}
	return fb.FormatEntryEnd(b)
}

// BuildFooter encodes f as the footer: a FlatBuffer with root FileFooter and
// no file identifier, as the original writer does.
func BuildFooter(b *flatbuffers.Builder, f *Footer) []byte {
	return BuildFooterFrom(b, f, len(f.Blocks), func(i int, bi *BlockIndex) { *bi = f.Blocks[i] })
}

// BuildFooterFrom is BuildFooter with the n block entries produced by
// block(i, &entry), in order, instead of read from f.Blocks: a writer that
// keeps its block list compactly never materializes a []BlockIndex. The
// entry (and its Units) is consumed before block is called again.
func BuildFooterFrom(b *flatbuffers.Builder, f *Footer, n int, block func(i int, bi *BlockIndex)) []byte {
	b.Reset()
	blocks := make([]flatbuffers.UOffsetT, n)
	var entry BlockIndex
	for i := range n {
		block(i, &entry)
		bi := &entry
		var units flatbuffers.UOffsetT
		if bi.Units != nil {
			fb.BlockHeaderStartUnitsVector(b, len(bi.Units))
			for j := len(bi.Units) - 1; j >= 0; j-- {
				b.PrependUint16(bi.Units[j])
			}
			units = b.EndVector(len(bi.Units))
		}
		fb.BlockHeaderStart(b)
		fb.BlockHeaderAddBlockIndex(b, bi.Index)
		fb.BlockHeaderAddEventCount(b, bi.EventCount)
		fb.BlockHeaderAddMinCycle(b, bi.MinCycle)
		fb.BlockHeaderAddMaxCycle(b, bi.MaxCycle)
		fb.BlockHeaderAddUncompressedSize(b, bi.UncompressedSize)
		fb.BlockHeaderAddCompressedSize(b, bi.CompressedSize)
		fb.BlockHeaderAddDataOffset(b, bi.DataOffset)
		if bi.Units != nil {
			fb.BlockHeaderAddUnits(b, units)
		}
		if f.HasCRC {
			prependUint32Forced(b, slotBlockCRC, bi.CRC) // a CRC of 0 is still a CRC
		}
		blocks[i] = fb.BlockHeaderEnd(b)
	}
	stats := make([]flatbuffers.UOffsetT, len(f.UnitStats))
	for i, s := range f.UnitStats {
		fb.UnitStatsStart(b)
		fb.UnitStatsAddUnitId(b, s.UnitID)
		fb.UnitStatsAddEmitted(b, s.Emitted)
		fb.UnitStatsAddWritten(b, s.Written)
		fb.UnitStatsAddDropped(b, s.Dropped)
		stats[i] = fb.UnitStatsEnd(b)
	}
	blocksVec := offsetVector(b, blocks, fb.FileFooterStartBlocksVector)
	var statsVec flatbuffers.UOffsetT
	if len(stats) > 0 {
		statsVec = offsetVector(b, stats, fb.FileFooterStartUnitStatsVector)
	}
	fb.FileFooterStart(b)
	fb.FileFooterAddBlocks(b, blocksVec)
	fb.FileFooterAddTotalEvents(b, f.TotalEvents)
	fb.FileFooterAddMinCycle(b, f.MinCycle)
	fb.FileFooterAddMaxCycle(b, f.MaxCycle)
	fb.FileFooterAddCreatedTimestamp(b, f.CreatedTimestamp)
	if statsVec != 0 {
		fb.FileFooterAddUnitStats(b, statsVec)
	}
	var crcAt flatbuffers.UOffsetT
	if f.HasCRC {
		crcAt = prependUint32Forced(b, slotFooterCRC, 0)
	}
	b.Finish(fb.FileFooterEnd(b))
	out := b.FinishedBytes()
	if f.HasCRC {
		// The field is where the builder put it, counted from the end of
		// the buffer; the checksum is computed with it zero, as it is now.
		binary.LittleEndian.PutUint32(out[len(out)-int(crcAt):], CRC32C(out))
	}
	return out
}

// prependUint32Forced adds uint32 field slot to the table being built even
// when v is the default (FlatBuffers leaves those out), and returns its
// position counted from the end of the buffer (stable while it grows).
func prependUint32Forced(b *flatbuffers.Builder, slot int, v uint32) flatbuffers.UOffsetT {
	b.PrependUint32(v)
	b.Slot(slot)
	return b.Offset()
}

func offsetVector(b *flatbuffers.Builder, offs []flatbuffers.UOffsetT, start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	start(b, len(offs))
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}
