package capi

import (
	"bufio"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chronon-sim/chronon-go/chronon"
	"github.com/chronon-sim/chronon-go/mmapio"
	"github.com/chronon-sim/chronon-go/schema"
)

// kindsProg registers, from C, a format of every event kind that between
// them give every argument role, emits one event of each and closes. It
// registers some of them twice: identical registrations must return the
// same format. Prints "ids a=b" pairs and exits non-zero on a failed call.
const kindsProg = `#include <stdio.h>
#include <string.h>
#include "chronon.h"
static int fails;
static void want(const char *what, chronon_status got) {
	if (got != CHRONON_OK) {
		printf("FAIL %s: %s: %s\n", what, chronon_status_string(got), chronon_last_error());
		fails++;
	}
}
typedef struct def {
	const char *text;
	int kind;
	size_t n;
	uint8_t types[4], roles[4];
	const char *name;
} def;
static const def defs[] = {
	{"inst v={} sym={} task={} parent={}", CHRONON_KIND_INSTANT, 4,
	 {CHRONON_UINT64, CHRONON_UINT32, CHRONON_UINT64, CHRONON_UINT64},
	 {CHRONON_ROLE_PLAIN, CHRONON_ROLE_SYMBOL, CHRONON_ROLE_ID, CHRONON_ROLE_PARENT}, NULL},
	{"sb begin lane={} flow={} parent={}", CHRONON_KIND_SPAN_BEGIN, 3, {CHRONON_UINT32, CHRONON_UINT64, CHRONON_UINT64},
	 {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW, CHRONON_ROLE_PARENT}, "sb"},
	{"sb end lane={} flow={}", CHRONON_KIND_SPAN_END, 2, {CHRONON_UINT32, CHRONON_UINT64},
	 {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW}, "sb"},
	{"sc lane={} flow={} dur={}", CHRONON_KIND_SPAN_COMPLETE, 3, {CHRONON_UINT32, CHRONON_UINT64, CHRONON_UINT64},
	 {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW, CHRONON_ROLE_DURATION}, NULL},
	{"cnt={}", CHRONON_KIND_COUNTER, 1, {CHRONON_INT64}, {CHRONON_ROLE_VALUE}, NULL},
	{"squash flow={}", CHRONON_KIND_FLUSH, 1, {CHRONON_UINT64}, {CHRONON_ROLE_FLOW}, NULL},
	{"task begin id={} parent={}", CHRONON_KIND_ASYNC_BEGIN, 2, {CHRONON_UINT64, CHRONON_UINT64},
	 {CHRONON_ROLE_ID, CHRONON_ROLE_PARENT}, "task"},
	{"task end id={}", CHRONON_KIND_ASYNC_END, 1, {CHRONON_UINT64}, {CHRONON_ROLE_ID}, "task"},
	{"retire flow={}", CHRONON_KIND_RETIRE, 1, {CHRONON_UINT64}, {CHRONON_ROLE_FLOW}, NULL},
	{"wakeup flow={} producer={}", CHRONON_KIND_INSTANT, 2, {CHRONON_UINT64, CHRONON_UINT64},
	 {CHRONON_ROLE_FLOW, CHRONON_ROLE_DEPENDS}, NULL},
};
#define N (sizeof defs / sizeof defs[0])
int main(int argc, char **argv) {
	chronon_tracer t;
	chronon_unit *u;
	chronon_format f[N], again;
	chronon_options o = CHRONON_OPTIONS_INIT;
	size_t i, j;
	(void)argc;
	for (i = 0; i < N; i++) {
		chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
		fo.kind = defs[i].kind;
		fo.roles = defs[i].roles;
		fo.name = defs[i].name;
		want(defs[i].text, chronon_format_register(defs[i].text, defs[i].types, defs[i].n, &fo, &f[i]));
		/* Again, from "another place": the same format. */
		fo.file = "elsewhere.c";
		fo.line = 7;
		want(defs[i].text, chronon_format_register(defs[i].text, defs[i].types, defs[i].n, &fo, &again));
		printf("ids %u=%u\n", f[i].id, again.id);
	}
	o.no_auto_metadata = 1;
	want("open", chronon_open(&t, argv[1], &o));
	want("unit", chronon_unit_create(t, "core", NULL, NULL, &u));
	for (i = 0; i < N; i++) {
		chronon_arg a[4];
		for (j = 0; j < defs[i].n; j++) {
			memset(&a[j], 0, sizeof a[j]);
			a[j].type = defs[i].types[j];
			a[j].v.u = 10 * i + j + 1;
		}
		want(defs[i].text, chronon_emit_args(u, &f[i], 100 + i, a, defs[i].n));
	}
	want("close", chronon_close(t));
	chronon_destroy(t);
	return fails;
}
`

// TestCEveryKindAndRole: C registers formats of every event kind and every
// argument role (the flush kind and the depends role were refused once),
// and they reach the file as Go records them; registering the same format
// again returns the same id.
func TestCEveryKindAndRole(t *testing.T) {
	tc := setup(t)
	exe := tc.compileC(t, "kinds", kindsProg)
	out := filepath.Join(t.TempDir(), "kinds.ctrace")
	stdout, _ := run(t, nil, exe, out)
	ids := 0
	for _, l := range strings.Split(stdout, "\n") {
		var a, b uint32
		if _, err := fmt.Sscanf(l, "ids %d=%d", &a, &b); err == nil {
			ids++
			if a != b || a == 0 {
				t.Errorf("registered twice: ids %d and %d, want one id", a, b)
			}
		}
	}
	if ids != 10 {
		t.Fatalf("output: %s", stdout)
	}
	tc.oracleCheck(t, out)
	r, err := mmapio.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	P, L, F, D, V, Dep, ID, Par, S := schema.RolePlain, schema.RoleLane, schema.RoleFlow, schema.RoleDuration,
		schema.RoleValue, schema.RoleDepends, schema.RoleID, schema.RoleParent, schema.RoleSymbol
	want := map[string]struct {
		kind  schema.EventKind
		name  string
		roles []schema.ArgRole
	}{
		"inst v={} sym={} task={} parent={}": {schema.KindInstant, "", []schema.ArgRole{P, S, ID, Par}},
		"sb begin lane={} flow={} parent={}": {schema.KindSpanBegin, "sb", []schema.ArgRole{L, F, Par}},
		"sb end lane={} flow={}":             {schema.KindSpanEnd, "sb", []schema.ArgRole{L, F}},
		"sc lane={} flow={} dur={}":          {schema.KindSpanComplete, "sc lane", []schema.ArgRole{L, F, D}},
		"cnt={}":                             {schema.KindCounter, "cnt", []schema.ArgRole{V}},
		"squash flow={}":                     {schema.KindFlush, "squash flow", []schema.ArgRole{F}},
		"task begin id={} parent={}":         {schema.KindAsyncBegin, "task", []schema.ArgRole{ID, Par}},
		"task end id={}":                     {schema.KindAsyncEnd, "task", []schema.ArgRole{ID}},
		"retire flow={}":                     {schema.KindRetire, "retire flow", []schema.ArgRole{F}},
		"wakeup flow={} producer={}":         {schema.KindInstant, "", []schema.ArgRole{F, Dep}},
	}
	kinds, roles := map[schema.EventKind]bool{}, map[schema.ArgRole]bool{}
	for _, f := range r.Formats() {
		w, ok := want[f.Format.Format]
		if !ok {
			t.Errorf("unexpected format %q", f.Format.Format)
			continue
		}
		delete(want, f.Format.Format)
		if f.Kind != w.kind || f.Name != w.name || fmt.Sprint(f.ArgRoles) != fmt.Sprint(w.roles) {
			t.Errorf("%q: kind %v name %q roles %v, want %v %q %v", f.Format.Format, f.Kind, f.Name, f.ArgRoles, w.kind, w.name, w.roles)
		}
		if f.File != "" {
			t.Errorf("%q: source %s:%d, want the first registration's (none)", f.Format.Format, f.File, f.Line)
		}
		kinds[f.Kind] = true
		for _, ro := range f.ArgRoles {
			roles[ro] = true
		}
	}
	for text := range want {
		t.Errorf("format %q is not in the schema", text)
	}
	if len(kinds) != int(schema.KindLast)+1 || len(roles) != int(schema.RoleLast)+1 {
		t.Errorf("the schema has %d kinds and %d roles, want all %d and %d", len(kinds), len(roles), schema.KindLast+1, schema.RoleLast+1)
	}
	n := 0
	for range r.Events(mmapio.Query{}) {
		n++
	}
	if n != 10 {
		t.Errorf("%d events, want 10", n)
	}
}

// validateProg reads registrations, one a line ("kind r0 r1 t0 t1 text"),
// and prints the status that the library's own C validation gives each
// (chronon__format_validate: what a registration made before the Go
// runtime starts relies on) and, for a refusal, the message.
const validateProg = `#include <stdio.h>
#include <string.h>
#include "chronon.h"
chronon_status chronon__format_validate(const char *text, const uint8_t *types, size_t n, const chronon_format_options *o);
int main(void) {
	char line[512];
	while (fgets(line, sizeof line, stdin)) {
		int kind, r0, r1, t0, t1, off = 0;
		uint8_t types[2], roles[2];
		chronon_format_options fo = CHRONON_FORMAT_OPTIONS_INIT;
		chronon_status st;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%d %d %d %d %d %n", &kind, &r0, &r1, &t0, &t1, &off) != 5)
			return 2;
		types[0] = (uint8_t)t0, types[1] = (uint8_t)t1;
		roles[0] = (uint8_t)r0, roles[1] = (uint8_t)r1;
		fo.kind = kind;
		fo.roles = roles;
		st = chronon__format_validate(line + off, types, 2, &fo);
		printf("%d %s\n", (int)st, st == CHRONON_OK ? "" : chronon_last_error());
	}
	return 0;
}
`

// TestCValidationMatchesGo: the C registry validates a format before the
// Go runtime starts (static constructors), so it must refuse exactly what
// the Go runtime refuses: every kind (and one past the last) times every
// pair of roles (and one past the last) times pairs of argument types,
// each checked by C and by chronon.NewDynamicFormat.
func TestCValidationMatchesGo(t *testing.T) {
	tc := setup(t)
	exe := tc.compileC(t, "validate", validateProg)
	types := []schema.ArgType{schema.ArgUInt64, schema.ArgUInt32, schema.ArgDouble, schema.ArgString}
	var in strings.Builder
	type tcase struct {
		kind   schema.EventKind
		r0, r1 schema.ArgRole
		t0, t1 schema.ArgType
		text   string
	}
	var cases []tcase
	for k := 0; k <= int(schema.KindLast)+1; k++ {
		for r0 := 0; r0 <= int(schema.RoleLast)+1; r0++ {
			for r1 := 0; r1 <= int(schema.RoleLast)+1; r1++ {
				for _, t0 := range types {
					for _, t1 := range types {
						// A text per case: Go deduplicates identical registrations.
						c := tcase{schema.EventKind(k), schema.ArgRole(r0), schema.ArgRole(r1), t0, t1,
							fmt.Sprintf("validate k%d r%d.%d t%d.%d a={} b={}", k, r0, r1, t0, t1)}
						cases = append(cases, c)
						fmt.Fprintf(&in, "%d %d %d %d %d %s\n", k, r0, r1, t0, t1, c.text)
					}
				}
			}
		}
	}
	// Two placeholder counts that do not match.
	for _, text := range []string{"validate one={}", "validate three={} {} {}"} {
		cases = append(cases, tcase{0, 0, 0, schema.ArgUInt64, schema.ArgUInt64, text})
		fmt.Fprintf(&in, "0 0 0 8 8 %s\n", text)
	}
	stdout, _ := runStdin(t, in.String(), exe)
	sc := bufio.NewScanner(strings.NewReader(stdout))
	accepted, mismatches := 0, 0
	for i := 0; sc.Scan(); i++ {
		if i >= len(cases) {
			t.Fatalf("more results than cases")
		}
		c := cases[i]
		var st int
		fmt.Sscanf(sc.Text(), "%d", &st)
		_, goErr := chronon.NewDynamicFormat(c.text, []schema.ArgType{c.t0, c.t1},
			chronon.WithKind(c.kind, c.r0, c.r1))
		if (st == 0) != (goErr == nil) || (st != 0 && st != -1) {
			if mismatches++; mismatches <= 10 {
				t.Errorf("kind %d roles %d,%d types %v,%v %q: C says %q, Go says %v", c.kind, c.r0, c.r1, c.t0, c.t1, c.text,
					sc.Text(), goErr)
			}
		}
		if st == 0 {
			accepted++
		}
	}
	if mismatches > 0 {
		t.Fatalf("%d of %d cases differ", mismatches, len(cases))
	}
	t.Logf("%d cases, %d accepted by both, the rest refused by both", len(cases), accepted)
}
