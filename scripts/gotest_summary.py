#!/usr/bin/env python3
"""Reads `go test -json` on stdin and says what the run is doing.

One line per package as it finishes, one line per test of the packages named
with --verbose (the cgo tests, which take minutes each), every failing test's
output in full (subtests' too), a closing line `tests: N passed, N failed, N skipped`, and the
slowest top-level tests (where the time of `make test` goes).
Exits 1 when any test or package failed (a build failure has no test events,
so packages are counted too).
"""
import json
import sys

verbose = set(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--verbose="))
passed = failed = skipped = 0
skips = []  # (pkg, test, reason) of every skipped test, named in the summary
times = []  # (elapsed, pkg, test) of every top-level test
bad_pkgs = []
out = {}  # (pkg, test) -> lines, kept until the test ends
for line in sys.stdin:
    try:
        ev = json.loads(line)
    except ValueError:
        sys.stdout.write(line)  # build errors and such come as plain text
        continue
    pkg, test, action = ev.get("Package", ""), ev.get("Test"), ev.get("Action")
    key = (pkg, test)
    if action == "output":
        out.setdefault(key, []).append(ev.get("Output", ""))
        continue
    if action not in ("pass", "fail", "skip"):
        if action == "run" and test and "/" not in test and any(pkg.endswith(v) for v in verbose):
            print(f"    run  {test}", flush=True)
        continue
    lines = out.pop(key, [])
    if test and "/" not in test:
        times.append((ev.get("Elapsed", 0), pkg, test))
    if test:
        if action == "pass":
            passed += 1
        elif action == "skip":
            skipped += 1
            # The reason is the t.Skip message: the output lines between
            # "=== RUN" and "--- SKIP", without them.
            reason = " ".join(l.strip() for l in lines
                              if l.strip() and not l.lstrip().startswith(("=== ", "--- SKIP")))
            skips.append((pkg, test, reason))
        else:
            failed += 1
        if action == "fail":
            # A failing subtest's own output (its assertion messages) is
            # printed too: its parent's lines hold only "--- FAIL".
            sys.stdout.write("".join(lines))
        elif "/" not in test and any(pkg.endswith(v) for v in verbose):
            print(f"    {action}  {test} ({ev.get('Elapsed', 0):.1f}s)", flush=True)
        continue
    # package result
    elapsed = ev.get("Elapsed", 0)
    if action == "fail":
        bad_pkgs.append(pkg)
        sys.stdout.write("".join(l for l in lines if not l.startswith(("=== ", "--- PASS", "PASS"))))
        print(f"FAIL {pkg} ({elapsed:.1f}s)", flush=True)
    elif action == "skip":
        print(f"  -  {pkg} (no test files)", flush=True)
    else:
        print(f"  ok {pkg} ({elapsed:.1f}s)", flush=True)
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
for pkg, test, reason in skips:
    print(f"  SKIPPED {pkg} {test}: {reason or '(no reason given)'}")
slow = sorted(times, reverse=True)[:12]
if slow and slow[0][0] >= 1:
    print("slowest tests: " + ", ".join(f"{t} ({p.rsplit('/', 1)[-1]}) {e:.0f}s" for e, p, t in slow if e >= 1))
if bad_pkgs and not failed:
    print("packages that failed without a failing test (build error?): " + " ".join(bad_pkgs))
sys.exit(1 if failed or bad_pkgs else 0)
