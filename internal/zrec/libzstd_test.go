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
// libzstd (through python3-zstandard) and compares with <name>.raw.
const libzstdCheck = `
import os, sys, zstandard
d = sys.argv[1]
names = sorted(n[:-4] for n in os.listdir(d) if n.endswith(".zst"))
bad = 0
for n in names:
    raw = open(os.path.join(d, n + ".raw"), "rb").read()
    frame = open(os.path.join(d, n + ".zst"), "rb").read()
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
