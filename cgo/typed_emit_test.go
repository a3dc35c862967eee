package capi

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/schema"
)

// typedEmitProg attacks the typed emitters' one-compare check (the format's
// check word XOR the emitter's signature must give the format's id_cat)
// and the 32-bit bounds test of chronon__begin_at. It prints "ok"/"FAIL"
// lines, then "valid N" (the events it expects in the file, cycles below
// 1000000; every refused emit uses a cycle from 1000000 on) and "blocks B
// raw R" from chronon_get_stats after close.
const typedEmitProg = `#include <stdio.h>
#include <string.h>
#include "chronon.h"
CHRONON_DEFINE_EMIT2(emit_u64_bool, u64, bool)
CHRONON_DEFINE_EMIT2(emit_u64_u8, u64, u8)
CHRONON_DEFINE_EMIT2(emit_u64_i8, u64, i8)
CHRONON_DEFINE_EMIT2(emit_i64_bool, i64, bool)
CHRONON_DEFINE_EMIT2(emit_f64_bool, f64, bool)
CHRONON_DEFINE_EMIT2(emit_ptr_bool, ptr, bool)
CHRONON_DEFINE_EMIT2(emit_bool_u64, bool, u64)
CHRONON_DEFINE_EMIT2(emit_u32_u16, u32, u16)
CHRONON_DEFINE_EMIT3(emit_u64_bool_u8, u64, bool, u8)
CHRONON_DEFINE_EMIT1(emit_u64, u64)
CHRONON_DEFINE_EMIT0(emit_none)
static int failures;
static uint64_t bad = 1000000; /* cycle of the next refused emit */
static void expect(const char *what, chronon_status got, chronon_status want) {
	if (got == want) {
		printf("ok %s\n", what);
		return;
	}
	printf("FAIL %s: got %s, want %s (%s)\n", what, chronon_status_string(got), chronon_status_string(want),
	       chronon_last_error());
	failures++;
}
static void refused(const char *what, chronon_status got) {
	if (got < 0 && got != CHRONON_ERR_INTERNAL) {
		printf("ok %s: %s\n", what, chronon_status_string(got));
		return;
	}
	printf("FAIL %s: got %s, want an error status\n", what, chronon_status_string(got));
	failures++;
}
int main(int argc, char **argv) {
	static const uint8_t t_ub[] = {CHRONON_UINT64, CHRONON_BOOL}, t_wh[] = {CHRONON_UINT32, CHRONON_UINT16},
	                     t_s[] = {CHRONON_STRING};
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_tracer t;
	chronon_format fub, fwh, fs, spliced, zero;
	chronon_unit *u, *fill;
	chronon_writer w;
	chronon_stats st;
	chronon_unit_stats us[2];
	static char big[8192];
	uint64_t valid = 0, i;
	(void)argc;
	o.no_auto_metadata = 1;
	o.block_size = 4096;
	o.ring_size = 16384;
	if (chronon_open(&t, argv[1], &o) != CHRONON_OK || chronon_unit_create(t, "u", NULL, NULL, &u) != CHRONON_OK ||
	    chronon_unit_create(t, "fill", NULL, NULL, &fill) != CHRONON_OK ||
	    chronon_format_register("ub pc={:x} b={}", t_ub, 2, NULL, &fub) != CHRONON_OK ||
	    chronon_format_register("wh w={} h={}", t_wh, 2, NULL, &fwh) != CHRONON_OK ||
	    chronon_format_register("s {}", t_s, 1, NULL, &fs) != CHRONON_OK) {
		printf("setup: %s\n", chronon_last_error());
		return 2;
	}

	/* The right emitter, then every emitter of another signature: same
	 * count and size with one type changed, the types swapped, another
	 * count. None may write. */
	expect("(u64,bool) by its own emitter", emit_u64_bool(u, &fub, 1, 0x1000, true), CHRONON_OK);
	valid++;
	expect("(u64,bool) by (u64,u8): same size, another type", emit_u64_u8(u, &fub, bad++, 1, 1), CHRONON_ERR_ARG);
	expect("(u64,bool) by (u64,i8)", emit_u64_i8(u, &fub, bad++, 1, 1), CHRONON_ERR_ARG);
	expect("(u64,bool) by (i64,bool)", emit_i64_bool(u, &fub, bad++, 1, true), CHRONON_ERR_ARG);
	expect("(u64,bool) by (f64,bool)", emit_f64_bool(u, &fub, bad++, 1.0, true), CHRONON_ERR_ARG);
	expect("(u64,bool) by (ptr,bool)", emit_ptr_bool(u, &fub, bad++, &o, true), CHRONON_ERR_ARG);
	expect("(u64,bool) by (bool,u64): swapped", emit_bool_u64(u, &fub, bad++, true, 1), CHRONON_ERR_ARG);
	expect("(u64,bool) by (u64,bool,u8): one more", emit_u64_bool_u8(u, &fub, bad++, 1, true, 1), CHRONON_ERR_ARG);
	expect("(u64,bool) by (u64): one fewer", emit_u64(u, &fub, bad++, 1), CHRONON_ERR_ARG);
	expect("(u64,bool) by (): none", emit_none(u, &fub, bad++), CHRONON_ERR_ARG);
	expect("(u32,u16) by (u64,bool)", emit_u64_bool(u, &fwh, bad++, 1, true), CHRONON_ERR_ARG);
	expect("(string) by (u64)", emit_u64(u, &fs, bad++, 1), CHRONON_ERR_ARG);

	/* Formats that were never registered as they stand. */
	memset(&zero, 0, sizeof zero);
	refused("a zeroed format by (u64,bool)", emit_u64_bool(u, &zero, bad++, 1, true));
	refused("a zeroed format by ()", emit_none(u, &zero, bad++));
	spliced = fub;
	spliced.check = fwh.check; /* another format's check word */
	refused("(u64,bool) with (u32,u16)'s check word", emit_u64_bool(u, &spliced, bad++, 1, true));
	refused("(u64,bool) with (u32,u16)'s check word, by (u32,u16)", emit_u32_u16(u, &spliced, bad++, 1, 1));
	spliced = fwh;
	spliced.id_cat = fub.id_cat; /* (u32,u16)'s check, (u64,bool)'s id and category */
	refused("(u32,u16)'s check with (u64,bool)'s id_cat, by (u64,bool)", emit_u64_bool(u, &spliced, bad++, 1, true));
	spliced = fub;
	spliced.id_cat ^= UINT64_C(1) << 40; /* another category in the header */
	refused("(u64,bool) with its category altered", emit_u64_bool(u, &spliced, bad++, 1, true));
	spliced = fub;
	spliced.check ^= 1; /* as if the id were one off */
	refused("(u64,bool) with its check word one off", emit_u64_bool(u, &spliced, bad++, 1, true));

	/* begin at max_args exactly, and one past. */
	expect("begin: a string of exactly max_args", chronon_begin(&w, u, &fs, 2, u->max_args), CHRONON_OK);
	memset(big, 'q', u->max_args - 1);
	big[u->max_args - 1] = 0;
	chronon_put_str(&w, big);
	expect("commit: a string of exactly max_args", chronon_commit(&w), CHRONON_OK);
	valid++;
	expect("begin: max_args + 1", chronon_begin(&w, u, &fs, bad++, (size_t)u->max_args + 1), CHRONON_ERR_ARG);
	expect("begin: 2^32 + 9 (would wrap a 32-bit size)", chronon_begin(&w, u, &fub, bad++, (UINT64_C(1) << 32) + 9),
	       CHRONON_ERR_ARG);
	expect("the (u64,bool) event after them", emit_u64_bool(u, &fub, 3, 0x2000, false), CHRONON_OK);
	valid++;

	/* Events of 32 bytes (26 + u32 + u16) fill a 4096-byte chunk exactly:
	 * the 128th ends at the chunk's end and must go into it. */
	for (i = 0; i < 3 * 128; i++) {
		chronon_status s = emit_u32_u16(fill, &fwh, 10 + i, (uint32_t)i, (uint16_t)~i);
		if (s != CHRONON_OK) {
			expect("fill", s, CHRONON_OK);
			break;
		}
	}
	valid += 3 * 128;

	expect("close", chronon_close(t), CHRONON_OK);
	expect("get_stats", chronon_get_stats(t, &st, us, 2), CHRONON_OK);
	printf("valid %llu\n", (unsigned long long)valid);
	printf("blocks %llu raw %llu\n", (unsigned long long)st.blocks, (unsigned long long)st.raw_bytes);
	printf("u emitted %llu written %llu dropped %llu\n", (unsigned long long)us[0].emitted,
	       (unsigned long long)us[0].written, (unsigned long long)us[0].dropped);
	printf("fill emitted %llu written %llu dropped %llu\n", (unsigned long long)us[1].emitted,
	       (unsigned long long)us[1].written, (unsigned long long)us[1].dropped);
	chronon_destroy(t);
	printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
`

// TestTypedEmitRefusesOtherSignatures: a typed emitter writes only into a
// format registered with its own signature (same size with another type,
// swapped types, another count: CHRONON_ERR_ARG), refuses zeroed, spliced
// and altered format structs, and its bounds test takes an event that ends
// exactly at the chunk's end; chronon_begin takes exactly max_args and
// refuses one more. The file holds exactly the accepted events, each with
// its arg count and args size, and the fill unit's 384 events of 32 bytes
// make three full 4096-byte blocks.
func TestTypedEmitRefusesOtherSignatures(t *testing.T) {
	tc := setup(t)
	bin := tc.compileC(t, "typed_emit", typedEmitProg)
	path := filepath.Join(t.TempDir(), "typed.ctrace")
	stdout, stderr, err := runErr(t, nil, bin, path)
	t.Log(stdout)
	if err != nil || !strings.Contains(stdout, "PASS: 0 failures") {
		t.Fatalf("typed_emit: %v\n%s\nstderr: %s", err, stdout, tail(stderr))
	}
	var valid, blocks, raw uint64
	var emitted, written, dropped [2]uint64
	for _, l := range strings.Split(stdout, "\n") {
		fmt.Sscanf(l, "valid %d", &valid)
		fmt.Sscanf(l, "blocks %d raw %d", &blocks, &raw)
		fmt.Sscanf(l, "u emitted %d written %d dropped %d", &emitted[0], &written[0], &dropped[0])
		fmt.Sscanf(l, "fill emitted %d written %d dropped %d", &emitted[1], &written[1], &dropped[1])
	}
	if valid != 3+384 {
		t.Fatalf("the program reports %d valid events, want 387", valid)
	}
	if emitted != [2]uint64{3, 384} || written != emitted || dropped != [2]uint64{} {
		t.Errorf("unit stats: emitted %v written %v dropped %v, want 3 and 384 of each, none dropped", emitted, written, dropped)
	}
	tc.oracleCheck(t, path)
	tr := readTrace(t, path)
	var n uint64
	var fillBytes int
	err = tr.events(func(r schema.Record, args []byte) error {
		n++
		if r.Cycle >= 1000000 {
			return fmt.Errorf("a refused emit was written: %+v args %x", r, args)
		}
		switch {
		case r.Cycle == 1 || r.Cycle == 3:
			if r.ArgCount != 2 || len(args) != 9 {
				return fmt.Errorf("(u64,bool) event at %d: arg count %d, %d args bytes", r.Cycle, r.ArgCount, len(args))
			}
			want := map[uint64][]byte{1: {0, 0x10, 0, 0, 0, 0, 0, 0, 1}, 3: {0, 0x20, 0, 0, 0, 0, 0, 0, 0}}[r.Cycle]
			if string(args) != string(want) {
				return fmt.Errorf("(u64,bool) event at %d: args %x, want %x", r.Cycle, args, want)
			}
		case r.Cycle == 2:
			if r.ArgCount != 1 || len(args) != 4096-26 || args[len(args)-1] != 0 || strings.Count(string(args), "q") != 4096-27 {
				return fmt.Errorf("the max_args event: arg count %d, %d bytes", r.ArgCount, len(args))
			}
		default:
			i := uint32(r.Cycle - 10)
			if r.ArgCount != 2 || len(args) != 6 || binary.LittleEndian.Uint32(args) != i ||
				binary.LittleEndian.Uint16(args[4:]) != uint16(^i) {
				return fmt.Errorf("fill event at %d: arg count %d, args %x", r.Cycle, r.ArgCount, args)
			}
			fillBytes += 26 + len(args)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != valid {
		t.Errorf("%d events in the file, want %d", n, valid)
	}
	if fillBytes != 3*4096 {
		t.Errorf("fill events: %d bytes, want 3 blocks of 4096", fillBytes)
	}
	// u's three events make three blocks (the max_args one fills a block
	// of its own), the fill unit's exactly three: a bounds test off by one
	// would need a fourth for the last events of each chunk.
	if blocks != 3+3 || raw != 35+4096+35+3*4096 {
		t.Errorf("blocks %d raw %d, want 6 blocks, %d raw bytes", blocks, raw, 35+4096+35+3*4096)
	}
}

// destroyProg destroys a tracer without closing it, then reuses its format
// in two later tracers, one of them on the first one's path.
const destroyProg = `#include <stdio.h>
#include "chronon.h"
CHRONON_DEFINE_EMIT2(emit_u64_bool, u64, bool)
static int failures;
static void expect(const char *what, chronon_status got, chronon_status want) {
	if (got != want) {
		printf("FAIL %s: got %s, want %s (%s)\n", what, chronon_status_string(got), chronon_status_string(want), chronon_last_error());
		failures++;
	} else
		printf("ok %s\n", what);
}
int main(int argc, char **argv) {
	static const uint8_t t_ub[] = {CHRONON_UINT64, CHRONON_BOOL};
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_tracer t1, t2, t3;
	chronon_format f;
	chronon_unit *u1, *u2, *u3;
	chronon_unit_stats us;
	uint64_t i;
	(void)argc;
	o.no_auto_metadata = 1;
	expect("register", chronon_format_register("d pc={:x} b={}", t_ub, 2, NULL, &f), CHRONON_OK);
	expect("open t1", chronon_open(&t1, argv[1], &o), CHRONON_OK);
	expect("unit u1", chronon_unit_create(t1, "u", NULL, NULL, &u1), CHRONON_OK);
	for (i = 0; i < 100; i++)
		expect("emit u1", emit_u64_bool(u1, &f, i, i, true), CHRONON_OK);
	expect("destroy t1 without close: close's status", chronon_destroy(t1), CHRONON_OK);
	expect("get_unit_stats after destroy", chronon_get_unit_stats(t1, u1, &us), CHRONON_ERR_HANDLE);
	expect("close after destroy", chronon_close(t1), CHRONON_ERR_HANDLE);
	expect("open t2", chronon_open(&t2, argv[2], &o), CHRONON_OK);
	expect("unit u2 (the same name, another tracer)", chronon_unit_create(t2, "u", NULL, NULL, &u2), CHRONON_OK);
	expect("open t3 on t1's path (its lock released)", chronon_open(&t3, argv[1], &o), CHRONON_OK);
	expect("unit u3", chronon_unit_create(t3, "u", NULL, NULL, &u3), CHRONON_OK);
	for (i = 0; i < 50; i++)
		expect("emit u2 with t1's format", emit_u64_bool(u2, &f, 1000 + i, i, false), CHRONON_OK);
	for (i = 0; i < 10; i++)
		expect("emit u3", emit_u64_bool(u3, &f, 2000 + i, i, true), CHRONON_OK);
	expect("close t3", chronon_close(t3), CHRONON_OK);
	expect("emit into u3 after close", emit_u64_bool(u3, &f, 3000, 0, true), CHRONON_CLOSED);
	expect("emit u2 after t3 closed", emit_u64_bool(u2, &f, 1050, 50, false), CHRONON_OK);
	expect("destroy t2 without close", chronon_destroy(t2), CHRONON_OK);
	expect("destroy t3", chronon_destroy(t3), CHRONON_OK);
	printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
`

// TestDestroyWithoutClose: chronon_destroy closes an open tracer (the file
// is complete and valid) and forgets its handle; the process-wide format
// goes on in later tracers, one of them on the destroyed tracer's path,
// which its lock no longer holds.
func TestDestroyWithoutClose(t *testing.T) {
	tc := setup(t)
	bin := tc.compileC(t, "destroy", destroyProg)
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "one.ctrace"), filepath.Join(dir, "two.ctrace")
	stdout, stderr, err := runErr(t, nil, bin, p1, p2)
	if err != nil || !strings.Contains(stdout, "PASS: 0 failures") {
		t.Fatalf("destroy: %v\n%s\nstderr: %s", err, stdout, tail(stderr))
	}
	for _, c := range []struct {
		path   string
		lo, hi uint64
	}{{p1, 2000, 2009}, {p2, 1000, 1050}} {
		tc.oracleCheck(t, c.path)
		var n uint64
		if err := readTrace(t, c.path).events(func(r schema.Record, args []byte) error {
			if r.Cycle < c.lo || r.Cycle > c.hi || r.ArgCount != 2 || len(args) != 9 {
				return fmt.Errorf("%s: event %+v args %x", c.path, r, args)
			}
			n++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n != c.hi-c.lo+1 {
			t.Errorf("%s: %d events, want %d", c.path, n, c.hi-c.lo+1)
		}
	}
}
