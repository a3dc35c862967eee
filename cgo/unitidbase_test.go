package capi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/mmapio"
)

// unitIDBaseProg opens a tracer with chronon_options.unit_id_base =
// argv[2], creates units a and b with automatic ids and c with id 7, emits
// one event on each and closes. A failed open prints the status and message
// and exits 3.
const unitIDBaseProg = `#include <stdio.h>
#include <stdlib.h>
#include "chronon.h"
int main(int argc, char **argv) {
	chronon_options o = CHRONON_OPTIONS_INIT;
	chronon_unit_options uo = CHRONON_UNIT_OPTIONS_INIT;
	chronon_tracer t;
	chronon_format f;
	chronon_unit *a, *b, *c;
	chronon_status st;
	(void)argc;
	o.no_auto_metadata = 1;
	o.unit_id_base = (uint32_t)strtoul(argv[2], NULL, 10);
	st = chronon_open(&t, argv[1], &o);
	if (st != CHRONON_OK) {
		printf("%s: %s\n", chronon_status_string(st), chronon_last_error());
		return 3;
	}
	uo.id = 7;
	if (chronon_format_register("tick", NULL, 0, NULL, &f) != CHRONON_OK ||
	    chronon_unit_create(t, "a", NULL, NULL, &a) != CHRONON_OK ||
	    chronon_unit_create(t, "b", NULL, NULL, &b) != CHRONON_OK ||
	    chronon_unit_create(t, "c", NULL, &uo, &c) != CHRONON_OK)
		return 4;
	if (chronon_emit_args(a, &f, 1, NULL, 0) != CHRONON_OK || chronon_emit_args(b, &f, 2, NULL, 0) != CHRONON_OK ||
	    chronon_emit_args(c, &f, 3, NULL, 0) != CHRONON_OK)
		return 5;
	return chronon_close(t) == CHRONON_OK ? 0 : 6;
}
`

// TestCUnitIDBase: chronon_options.unit_id_base starts automatic unit ids
// (0: from 1), explicit ids are unchanged, and a base above 65535 fails
// chronon_open with CHRONON_ERR_ARG naming the field.
func TestCUnitIDBase(t *testing.T) {
	tc := setup(t)
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "base.c"), filepath.Join(dir, "base")
	writeFile(t, src, unitIDBaseProg)
	built, how, err := ccBuild(t.Logf, dir, "gcc", []string{"-std=c99", "-Wall", "-Werror", "-I" + tc.include}, src, bin,
		"-L"+tc.lib, "-Wl,-rpath,"+tc.lib, "-lchronon", "-lpthread")
	if err != nil {
		t.Fatalf("gcc: %v\n%s", err, built)
	}
	t.Logf("base.c: %s", how)
	for _, c := range []struct {
		base string
		a, b uint16
	}{{"0", 1, 2}, {"1", 1, 2}, {"4001", 4001, 4002}} {
		path := filepath.Join(dir, "base"+c.base+".ctrace")
		run(t, nil, bin, path, c.base)
		r, err := mmapio.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]uint16{}
		for _, u := range r.Schema().Units {
			ids[u.Name] = u.ID
		}
		if ids["a"] != c.a || ids["b"] != c.b || ids["c"] != 7 {
			t.Errorf("unit_id_base %s: ids %v, want a=%d b=%d c=7", c.base, ids, c.a, c.b)
		}
		if n := r.Footer().TotalEvents; n != 3 {
			t.Errorf("unit_id_base %s: %d events, want 3", c.base, n)
		}
		r.Close()
		tc.oracleCheck(t, path)
	}
	out, _, err := runErr(t, nil, bin, filepath.Join(dir, "bad.ctrace"), "65536")
	if err == nil || !strings.Contains(out, "CHRONON_ERR_ARG") || !strings.Contains(out, "unit_id_base 65536") {
		t.Errorf("unit_id_base 65536: err %v, output %q", err, out)
	}
}
