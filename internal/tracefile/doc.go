// Package tracefile opens a .ctrace file and reads its blocks: the
// mapping, the validation of the header, the schema and the footer before
// any offset in them is trusted, the block table (the footer's entries read
// in place, or the blocks found by walking their inline headers when there
// is no usable footer), the seek index that finds the blocks of a cycle
// range, and the decoding and checking of a block's events into records.
//
// It is the ground the reading package (mmapio) builds its ordered
// iterations on, and what the packages that write files from existing
// blocks read them with. Errors name the file, the section and the byte
// (*schema.FormatError); a read of a mapping whose file shrank becomes a
// *FaultError instead of killing the process.
package tracefile
