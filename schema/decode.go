package schema

import "encoding/binary"

// Slots of the FlatBuffers tables (vtable field index), from TraceSchema.fbs.
const (
	slotSchemaVersion = iota
	slotSchemaFormats
	slotSchemaCategories
	slotSchemaUnits
	slotSchemaSimName
	slotSchemaConfigHash
	slotSchemaMetadata
	slotSchemaWriter
	slotSchemaTimeBase
	slotSchemaSymbols
)

const (
	slotUnitID = iota
	slotUnitName
	slotUnitTypeName
	slotUnitTimeBase
)

const (
	slotFormatID = iota
	slotFormatString
	slotFormatFile
	slotFormatLine
	slotFormatArgTypes
	slotFormatIsLog
	slotFormatLogLevel
	slotFormatKind
	slotFormatArgRoles
	slotFormatName
	slotFormatCategory
	slotFormatArgNames
)

const (
	slotBlockIndex = iota
	slotBlockEvents
	slotBlockMin
	slotBlockMax
	slotBlockUSize
	slotBlockCSize
	slotBlockOffset
	slotBlockUnits
	slotBlockCRC
)

const (
	slotFooterBlocks = iota
	slotFooterTotal
	slotFooterMin
	slotFooterMax
	slotFooterCreated
	slotFooterUnitStats
	slotFooterCRC
)

// DecodeSchema verifies and decodes a schema section. base is the section's
// absolute file offset, used in error messages. It also returns the section's
// extent: the end of the furthest object the FlatBuffer references, which is
// where the buffer ends (give or take alignment padding) when no header says
// how long it is.
func DecodeSchema(b []byte, base int64) (*Schema, int, error) {
	d := &fbuf{b: b, base: base, section: "schema"}
	root := d.root("TraceSchema")
	s := &Schema{
		Version:        d.scalar32(root, slotSchemaVersion, 1, "version"),
		SimulationName: d.strField(root, slotSchemaSimName, "simulation_name"),
		ConfigHash:     d.scalar64(root, slotSchemaConfigHash, "config_hash"),
		Writer:         d.strField(root, slotSchemaWriter, "writer"),
	}
	if start, n := d.vec(root, slotSchemaFormats, 4, "formats"); n > 0 {
		s.Formats = make([]Format, n)
		for i := range s.Formats {
			decodeFormat(d, d.elemTable(start, i, "formats"), &s.Formats[i])
		}
	}
	if start, n := d.vec(root, slotSchemaCategories, 4, "categories"); n > 0 {
		s.Categories = make([]Category, n)
		for i := range s.Categories {
			t := d.elemTable(start, i, "categories")
			s.Categories[i] = Category{
				Name:        d.strField(t, 0, "category name"),
				Description: d.strField(t, 1, "category description"),
				Mask:        d.scalar64(t, 2, "category mask"),
			}
		}
	}
	if start, n := d.vec(root, slotSchemaUnits, 4, "units"); n > 0 {
		s.Units = make([]Unit, n)
		for i := range s.Units {
			t := d.elemTable(start, i, "units")
			s.Units[i] = Unit{
				ID:       d.scalar16(t, slotUnitID, "unit id"),
				Name:     d.strField(t, slotUnitName, "unit name"),
				TypeName: d.strField(t, slotUnitTypeName, "unit type_name"),
				TimeBase: decodeTimeBase(d, t, slotUnitTimeBase, "unit time_base"),
			}
		}
	}
	if start, n := d.vec(root, slotSchemaMetadata, 4, "metadata"); n > 0 {
		s.Metadata = make([]KeyValue, n)
		for i := range s.Metadata {
			t := d.elemTable(start, i, "metadata")
			s.Metadata[i] = KeyValue{Key: d.strField(t, 0, "metadata key"), Value: d.strField(t, 1, "metadata value")}
		}
	}
	s.TimeBase = decodeTimeBase(d, root, slotSchemaTimeBase, "time_base")
	if start, n := d.vec(root, slotSchemaSymbols, 4, "symbols"); n > 0 {
		s.Symbols = make([]string, n)
		for i := range s.Symbols {
			if p := d.follow(start+4*i, "symbols"); p >= 0 {
				s.Symbols[i] = d.str(p, "symbols")
			}
		}
	}
	if d.err != nil {
		return nil, 0, d.err
	}
	return s, d.extent, nil
}

// decodeTimeBase decodes the TimeBase table in slot; a zero num or den is
// no time base (the zero TimeBase).
func decodeTimeBase(d *fbuf, t fbTable, slot int, what string) TimeBase {
	ref := d.field(t, slot, 4, what)
	if ref == 0 {
		return TimeBase{}
	}
	p := d.follow(ref, what)
	if p < 0 {
		return TimeBase{}
	}
	tt := d.table(ref, p, what)
	if d.err != nil {
		return TimeBase{}
	}
	tb := TimeBase{Num: d.scalar64(tt, 0, what+" num"), Den: d.scalar64(tt, 1, what+" den")}
	if tb.IsZero() {
		return TimeBase{}
	}
	return tb
}

func decodeFormat(d *fbuf, t fbTable, f *Format) {
	f.ID = d.scalar32(t, slotFormatID, 0, "format id")
	f.Format = d.strField(t, slotFormatString, "format_string")
	f.File = d.strField(t, slotFormatFile, "format file")
	f.Line = d.scalar32(t, slotFormatLine, 0, "format line")
	if start, n := d.vec(t, slotFormatArgTypes, 1, "arg_types"); n > 0 {
		f.ArgTypes = make([]ArgType, n)
		for i := range f.ArgTypes {
			f.ArgTypes[i] = ArgType(d.b[start+i])
		}
	}
	f.IsLog = d.scalar8(t, slotFormatIsLog, 0, "is_log") != 0
	f.LogLevel = d.scalar8(t, slotFormatLogLevel, 0, "log_level")
	f.Kind = EventKind(d.scalar8(t, slotFormatKind, 0, "kind"))
	if start, n := d.vec(t, slotFormatArgRoles, 1, "arg_roles"); n > 0 {
		f.ArgRoles = make([]ArgRole, n)
		for i := range f.ArgRoles {
			f.ArgRoles[i] = ArgRole(d.b[start+i])
		}
	}
	f.Name = d.strField(t, slotFormatName, "format name")
	f.Category = d.scalar64(t, slotFormatCategory, "format category")
	if start, n := d.vec(t, slotFormatArgNames, 4, "arg_names"); n > 0 {
		f.ArgNames = make([]string, n)
		for i := range f.ArgNames {
			if p := d.follow(start+4*i, "arg_names"); p >= 0 {
				f.ArgNames[i] = d.str(p, "arg_names")
			}
		}
	}
}

// DecodeFooter verifies and decodes a footer section at absolute offset base.
// Every block entry is copied into Footer.Blocks; a reader of a large trace
// keeps the entries in place instead (DecodeFooterIndex).
func DecodeFooter(b []byte, base int64) (*Footer, error) {
	f, _, _, err := decodeFooter(b, base, true, nil)
	return f, err
}

// decodeFooter verifies the footer and decodes it, with the block entries
// when keep is set; it returns where the blocks vector's elements start and
// how many there are. visit, when not nil, sees every verified entry.
func decodeFooter(b []byte, base int64, keep bool, visit BlockVisitor) (*Footer, int, int, error) {
	d := &fbuf{b: b, base: base, section: "footer"}
	root := d.root("FileFooter")
	f := &Footer{
		TotalEvents:      d.scalar64(root, slotFooterTotal, "total_events"),
		MinCycle:         d.scalar64(root, slotFooterMin, "min_cycle"),
		MaxCycle:         d.scalar64(root, slotFooterMax, "max_cycle"),
		CreatedTimestamp: d.scalar64(root, slotFooterCreated, "created_timestamp"),
	}
	if p := d.field(root, slotFooterCRC, 4, "crc32c"); p != 0 {
		f.CRC, f.HasCRC = binary.LittleEndian.Uint32(d.b[p:]), true
	}
	start, n := d.vec(root, slotFooterBlocks, 4, "blocks")
	if n > 0 {
		var scratch BlockIndex
		if keep {
			f.Blocks = make([]BlockIndex, n)
		}
		var units []uint16 // one backing array for every block's unit list
		for i := range n {
			bi := &scratch
			if keep {
				bi = &f.Blocks[i]
			}
			var recorded bool
			units, recorded = decodeBlockEntry(d, start, i, bi, units, keep)
			if d.err != nil {
				d.err.Reason = elemName("blocks", i) + ": " + d.err.Reason
				break
			}
			if visit != nil {
				if err := visit(i, n, bi, recorded); err != nil {
					return nil, 0, 0, err
				}
			}
		}
	}
	if start, n := d.vec(root, slotFooterUnitStats, 4, "unit_stats"); n > 0 {
		f.UnitStats = make([]UnitStat, n)
		for i := range f.UnitStats {
			t := d.elemTable(start, i, "unit_stats")
			f.UnitStats[i] = UnitStat{
				UnitID:  d.scalar16(t, 0, "unit_id"),
				Emitted: d.scalar64(t, 1, "emitted"),
				Written: d.scalar64(t, 2, "written"),
				Dropped: d.scalar64(t, 3, "dropped"),
			}
		}
	}
	if d.err != nil {
		return nil, 0, 0, d.err
	}
	return f, start, n, nil
}

// decodeBlockEntry decodes entry i of the footer's blocks vector into bi and
// reports whether it records a unit list. With keepUnits the list is
// appended to units and bi.Units points there (nil when the entry has no
// list, empty when the list is empty); without, the list is only verified
// and bi.Units stays nil.
func decodeBlockEntry(d *fbuf, start, i int, bi *BlockIndex, units []uint16, keepUnits bool) ([]uint16, bool) {
	t := d.elemTable(start, i, "blocks")
	bi.Index = d.scalar32(t, slotBlockIndex, 0, "block_index")
	bi.EventCount = d.scalar32(t, slotBlockEvents, 0, "event_count")
	bi.MinCycle = d.scalar64(t, slotBlockMin, "min_cycle")
	bi.MaxCycle = d.scalar64(t, slotBlockMax, "max_cycle")
	bi.UncompressedSize = d.scalar32(t, slotBlockUSize, 0, "uncompressed_size")
	bi.CompressedSize = d.scalar32(t, slotBlockCSize, 0, "compressed_size")
	bi.DataOffset = d.scalar64(t, slotBlockOffset, "data_offset")
	bi.CRC, bi.HasCRC = 0, false
	if p := d.field(t, slotBlockCRC, 4, "crc32c"); p != 0 {
		bi.CRC, bi.HasCRC = binary.LittleEndian.Uint32(d.b[p:]), true
	}
	bi.Units = nil
	us, un := d.vec(t, slotBlockUnits, 2, "block units")
	switch {
	case un > 0:
		if keepUnits {
			first := len(units)
			for j := 0; j < un; j++ {
				units = append(units, binary.LittleEndian.Uint16(d.b[us+2*j:]))
			}
			bi.Units = units[first:len(units):len(units)]
		}
		return units, true
	case d.field(t, slotBlockUnits, 4, "block units") != 0:
		if keepUnits {
			bi.Units = []uint16{} // present but empty: the block holds no unit's events
		}
		return units, true
	}
	return units, false
}
