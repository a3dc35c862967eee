package zrec

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const pythonPath = "/usr/bin/python3"

// libzstdCheck decompresses every <name>.zst in dir with the reference C
// libzstd (through python3-zstandard), which verifies the frame's content
// checksum (required present), and compares with <name>.raw.
const libzstdCheck = `
import os, sys, zstandard
d = sys.argv[1]
names = sorted(n[:-4] for n in os.listdir(d) if n.endswith(".zst"))
bad = 0
for n in names:
    raw = open(os.path.join(d, n + ".raw"), "rb").read()
    frame = open(os.path.join(d, n + ".zst"), "rb").read()
    if not zstandard.get_frame_parameters(frame).has_checksum:
        print("FAIL", n, "no content checksum"); bad += 1; continue
    try:
        got = zstandard.ZstdDecompressor().decompress(frame, max_output_size=len(raw))
    except Exception as ex:
        print("FAIL", n, "error:", ex); bad += 1; continue
    if got != raw:
        print("FAIL", n, "mismatch: got", len(got), "want", len(raw)); bad += 1
    else:
        print("ok", n, len(raw), len(frame))
print("libzstd", zstandard.backend, "checked", len(names), "frames,", bad, "failed")
sys.exit(1 if bad else 0)
`

// TestLibzstdCrossCheck proves that the reference C implementation decodes
// our frames, not only klauspost's decoder.
func TestLibzstdCrossCheck(t *testing.T) {
	if _, err := os.Stat(pythonPath); err != nil {
		t.Skip("!!!!!! SKIPPING libzstd CROSS-CHECK: " + pythonPath + " not found; install the Debian package python3-zstandard (apt-get install python3-zstandard) !!!!!!")
	}
	if out, err := exec.Command(pythonPath, "-c", "import zstandard").CombinedOutput(); err != nil {
		t.Skipf("!!!!!! SKIPPING libzstd CROSS-CHECK: python module zstandard missing; install the Debian package python3-zstandard (apt-get install python3-zstandard) !!!!!!\n%s", out)
	}
	dir := t.TempDir()
	inputs := map[string][]byte{}
	for _, c := range coverageInputs() {
		inputs[c.name] = c.src
	}
	blocks, _ := w1Blocks(100_000, 16, 64<<10, 1)
	for i := 0; i < len(blocks); i += 11 {
		inputs[fmt.Sprintf("w1-%03d", i)] = blocks[i]
	}
	for n := 1; n < 300; n += 37 {
		inputs[fmt.Sprintf("inter-%03d", n)] = w1Interleaved(400, 3, uint64(n))[:n*7]
	}
	inputs["random-1m"] = randomBytes(1<<20, 2)
	inputs["mixed-big"] = mixedBlock(60_000, 5)

	e, fast := newTestEncoder(), newTestEncoder(WithLiteralMinGain(3))
	for name, src := range inputs {
		frame := e.EncodeAll(src, nil)
		if err := os.WriteFile(filepath.Join(dir, name+"-fastlits.raw"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-fastlits.zst"), fast.EncodeAll(src, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := testDecoder.DecodeAll(frame, nil)
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%s: klauspost round trip failed: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".raw"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".zst"), frame, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// One frame built from hand-made sequences (3-byte sequence count).
	many := manySequencesFrame(e)
	if err := os.WriteFile(filepath.Join(dir, "many-sequences.raw"), manySequencesSrc(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "many-sequences.zst"), many, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pythonPath, "-c", libzstdCheck, dir).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(lines[len(lines)-1])
	if err != nil {
		t.Fatalf("libzstd rejected frames: %v\n%s", err, out)
	}
}

// libzstdChecksum checks, for every <name>.zst in dir, that libzstd sees a
// content checksum in the frame header and decodes the frame (which
// verifies the checksum), and that the same frame with one bit of its raw
// block payload flipped (<name>.flip) is refused for its checksum: the
// flipped byte decodes to a different byte without any structural error,
// so only the checksum can catch it.
const libzstdChecksum = `
import os, sys, zstandard
d = sys.argv[1]
names = sorted(n[:-4] for n in os.listdir(d) if n.endswith(".zst"))
bad = 0
for n in names:
    raw = open(os.path.join(d, n + ".raw"), "rb").read()
    frame = open(os.path.join(d, n + ".zst"), "rb").read()
    flip = open(os.path.join(d, n + ".flip"), "rb").read()
    if not zstandard.get_frame_parameters(frame).has_checksum:
        print("FAIL", n, "no content checksum in the frame header"); bad += 1; continue
    try:
        got = zstandard.ZstdDecompressor().decompress(frame, max_output_size=len(raw))
    except Exception as ex:
        print("FAIL", n, "error:", ex); bad += 1; continue
    if got != raw:
        print("FAIL", n, "mismatch"); bad += 1; continue
    try:
        # The streaming decoder: decompress() returns b"" for an empty
        # frame without reading its blocks.
        zstandard.ZstdDecompressor().decompressobj().decompress(flip)
        print("FAIL", n, "a flipped payload bit decoded without error"); bad += 1; continue
    except zstandard.ZstdError as ex:
        if "checksum" not in str(ex).lower():
            print("FAIL", n, "flipped bit refused, but not for the checksum:", ex); bad += 1; continue
    print("ok", n)
print("libzstd", zstandard.backend, "checked", len(names), "frames,", bad, "failed")
sys.exit(1 if bad else 0)
`

// TestLibzstdContentChecksum: every frame carries the content checksum
// (RFC 8878 Content_Checksum_flag) and libzstd, which verifies it, decodes
// the frame; a bit flipped in a stored (raw) block's payload is caught by
// the checksum. Random bytes are stored raw, so a bit flipped in them
// decodes to a different byte without any structural error (64 KiB and 7
// bytes); the empty frame has no payload, so its checksum is flipped.
func TestLibzstdContentChecksum(t *testing.T) {
	if out, err := exec.Command(pythonPath, "-c", "import zstandard").CombinedOutput(); err != nil {
		t.Skipf("!!!!!! SKIPPING libzstd CHECKSUM CHECK: %s with the zstandard module is missing; install the Debian package python3-zstandard !!!!!!\n%s", pythonPath, out)
	}
	dir := t.TempDir()
	e := newTestEncoder()
	for _, c := range []struct {
		name string
		src  []byte
	}{
		{"random-64k", randomBytes(64<<10, 9)},
		{"random-7", randomBytes(7, 3)},
		{"empty", nil},
	} {
		frame := e.EncodeAll(c.src, nil)
		flip := bytes.Clone(frame)
		// The frame header is magic + descriptor + content size; a raw
		// block's content follows its 3-byte header.
		fcs := []int{1, 2, 4, 8}[frame[4]>>6]
		at := 4 + 1 + fcs + blockHeaderLen + len(c.src)/2
		if len(c.src) == 0 {
			at = len(frame) - 1 // no payload: flip the checksum itself
		} else if typ := (frame[4+1+fcs] >> 1) & 3; typ != blockRaw {
			t.Fatalf("%s: block type %d, want a raw block to flip a bit in", c.name, typ)
		}
		flip[at] ^= 0x10
		for ext, b := range map[string][]byte{".raw": c.src, ".zst": frame, ".flip": flip} {
			if err := os.WriteFile(filepath.Join(dir, c.name+ext), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := exec.Command(pythonPath, "-c", libzstdChecksum, dir).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("libzstd: %v", err)
	}
}
