package capi

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/tracetext"
)

// selectProg opens a tracer with chronon_options.select = argv[2] (NULL
// when argv[2] is "-"), emits one event per cycle 0..99 on units a.x and
// b.y through the inline typed path and through chronon_emit_args, and
// closes it. A failed open prints the status and message and exits 3.
const selectProg = `#include <stdio.h>
#include <string.h>
#include "chronon.h"
CHRONON_DEFINE_EMIT1(emit_u64, u64)
int main(int argc, char **argv) {
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_tracer t;
	chronon_format f;
	chronon_unit *a, *b;
	uint8_t types[1] = {CHRONON_UINT64};
	chronon_status st;
	uint64_t c;
	(void)argc;
	o.no_auto_metadata = 1;
	o.select = strcmp(argv[2], "-") == 0 ? NULL : argv[2];
	st = chronon_open(&t, argv[1], &o);
	if (st != CHRONON_OK) {
		printf("%s: %s\n", chronon_status_string(st), chronon_last_error());
		return 3;
	}
	if (chronon_format_register("v={}", types, 1, NULL, &f) != CHRONON_OK ||
	    chronon_unit_create(t, "a.x", NULL, NULL, &a) != CHRONON_OK ||
	    chronon_unit_create(t, "b.y", NULL, NULL, &b) != CHRONON_OK)
		return 4;
	for (c = 0; c < 100; c++) {
		chronon_arg arg = chronon_arg_u64(c + 1000);
		emit_u64(a, &f, c, c);
		emit_u64(b, &f, c, c);
		chronon_emit_args(a, &f, c, &arg, 1);
	}
	return chronon_close(t) == CHRONON_OK ? 0 : 5;
}
`

// TestCSelect: chronon_options.select and CHRONON_TRACE choose the units
// and cycle window C producers record, on both emit paths; a malformed
// CHRONON_TRACE fails chronon_open with CHRONON_ERR_ARG naming it.
func TestCSelect(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "sel.c"), filepath.Join(dir, "sel")
	writeFile(t, src, selectProg)
	built, how, err := ccBuild(t.Logf, dir, "gcc", []string{"-std=c99", "-Wall", "-Werror", "-I" + tc.include}, src, bin,
		"-L"+tc.lib, "-Wl,-rpath,"+tc.lib, "-lchronon", "-lpthread")
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, built)
	}
	t.Logf("sel.c: %s", how)
	check := func(env []string, sel string, want []string) {
		t.Helper()
		path := filepath.Join(dir, "sel.ctrace")
		os.Remove(path)
		run(t, env, bin, path, sel)
		r, err := mmapio.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var b bytes.Buffer
		if _, err := tracetext.WriteDump(&b, r, mmapio.Query{}, 0); err != nil {
			t.Fatal(err)
		}
		if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("select %q env %v: dump\n%s\nwant\n%s", sel, env, b.String(), strings.Join(want, "\n"))
		}
		if len(r.Units()) != 2 {
			t.Errorf("select %q: %d units in the schema, want 2", sel, len(r.Units()))
		}
	}
	want := []string{
		"[        10] a.x: v=10", "[        10] a.x: v=1010",
		"[        11] a.x: v=11", "[        11] a.x: v=1011",
		"[        12] a.x: v=12", "[        12] a.x: v=1012",
	}
	check(nil, "units=a.*;cycles=10-12", want)
	check([]string{"CHRONON_TRACE=units=a.*;cycles=10-12"}, "-", want)
	check([]string{"CHRONON_TRACE=units=b.*"}, "units=a.*;cycles=10-12", want) // the option replaces the environment

	out, _, err := runErr(t, []string{"CHRONON_TRACE=cycles=12-10"}, bin, filepath.Join(dir, "bad.ctrace"), "-")
	if err == nil || !strings.Contains(out, "CHRONON_ERR_ARG") || !strings.Contains(out, "CHRONON_TRACE=") ||
		!strings.Contains(out, "ends before it starts") {
		t.Errorf("malformed CHRONON_TRACE: err %v, output %q", err, out)
	}
}
