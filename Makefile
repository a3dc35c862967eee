# Chronon in Go. `make demo` writes a trace and reads it back; `make test`
# runs every test. Both install what they need (Debian packages via apt-get
# when missing; Go modules through the module proxy).

GO        ?= go
BIN       := bin
SHARED    ?= ../shared
PYTHON    := /usr/bin/python3
FUZZTIME  ?= 10s
DEMO_N    ?= 2000000
REPS      ?= 5

.PHONY: all build demo test fresh-machine test-go vet cross fuzz oracle perfetto-check parquet-check deps deps-perfetto deps-schema deps-cli schema bench speed generate docs man clean

all: build

# -buildvcs=auto: the tools print the commit they were built from (--version)
# even where GOFLAGS says -buildvcs=false, as on the development machines.
build:
	$(GO) build -buildvcs=auto -o $(BIN)/ ./cmd/...

# deps installs what the tests use: python3-zstandard for the conformance
# oracle (and the libzstd cross-checks), via apt-get; staticcheck, at its
# module version (the proxy serves v0.8.2, not the release name 2026.2.2),
# into bin/tools/ of this clone, never GOPATH/bin: a staticcheck a machine
# happens to have cannot stand in for a broken install step.
STATICCHECK_VERSION ?= v0.8.2
TOOLS       := $(CURDIR)/$(BIN)/tools
STATICCHECK := $(TOOLS)/staticcheck-$(STATICCHECK_VERSION)/staticcheck
deps: deps-c deps-cli $(STATICCHECK)
	@$(PYTHON) -c 'import zstandard' 2>/dev/null || { \
		echo "installing python3-zstandard (conformance oracle)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-zstandard >/dev/null; }

$(STATICCHECK):
	@echo "installing staticcheck $(STATICCHECK_VERSION) into $(dir $@)"
	GOBIN=$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# deps-perfetto: protoc and the Python protobuf runtime, for the official
# Perfetto schema checks (make perfetto-check).
deps-perfetto:
	@command -v protoc >/dev/null && $(PYTHON) -c 'import google.protobuf' 2>/dev/null || { \
		echo "installing protobuf-compiler and python3-protobuf (Perfetto schema checks)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler python3-protobuf >/dev/null; }

deps-schema:
	@command -v flatc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq flatbuffers-compiler >/dev/null; }

# demo: what the tool is for. A small out-of-order pipeline (pipesim) traced
# with spans, flows and counters, read back (info, a filter, stats) and
# exported for Perfetto; then the benchmark workload (W1, 2M events, 16 units)
# written and queried.
demo: build
	@mkdir -p $(BIN)/demo
	@echo "== pipesim: 20000 instructions through fetch/decode/rename/exec/retire"
	$(BIN)/pipesim -n 20000 -o $(BIN)/demo/pipe.ctrace
	$(BIN)/trace_reader info $(BIN)/demo/pipe.ctrace
	@echo "== what did core0.exec do in cycles 1000-1010?"
	$(BIN)/trace_reader filter --unit core0.exec --cycles 1000-1010 $(BIN)/demo/pipe.ctrace
	@echo "== stats: per unit, per format, span latencies, occupancy, stage latency along flows"
	$(BIN)/trace_reader stats $(BIN)/demo/pipe.ctrace
	$(BIN)/trace_reader export --format perfetto -o $(BIN)/demo/pipe.pftrace $(BIN)/demo/pipe.ctrace
	@echo "== open https://ui.perfetto.dev and drop $(BIN)/demo/pipe.pftrace on it (Open trace file)"
	@echo "== W1, the benchmark workload: $(DEMO_N) events over 16 units"
	$(BIN)/tracegen --workload w1 --events $(DEMO_N) --units 16 -o $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader info -v $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader dump --limit 10 $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader filter --unit core1.l2 --cycles 500000-500200 $(BIN)/demo/w1.ctrace
	@echo "== pipeline view: pipesim with stalls and squashes, exported for Konata (one row per instruction)"
	$(BIN)/pipesim -n 20000 --hazards -o $(BIN)/demo/hazards.ctrace && $(BIN)/trace_reader export --format kanata -o $(BIN)/demo/pipe.kanata $(BIN)/demo/hazards.ctrace
	@echo "== open $(BIN)/demo/pipe.kanata in Konata (https://github.com/shioyadan/Konata): File > Open"
	@echo "== SQL on the trace (DuckDB, no import step): taken branches per unit"
	$(BIN)/trace_reader sql $(BIN)/demo/w1.ctrace -c "SELECT unit, count(*) AS fetches, round(avg(taken::INT), 3) AS taken FROM fetch_ GROUP BY unit ORDER BY unit"

# test: vet, staticcheck, every unit/property/golden test under the race
# detector, and a short run of every fuzz target (longer runs: make fuzz
# FUZZTIME=10m). scripts/test.sh prints a line per stage and a summary.
test: deps
	FUZZTIME=$(FUZZTIME) STATICCHECK=$(STATICCHECK) scripts/test.sh

vet:
	$(GO) vet ./...

test-go:
	$(GO) test -race -count=1 -timeout 15m ./...

fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# cross: every command builds for macOS (arm64) and Windows (amd64) without
# cgo, and every package with its tests vets for each system, so a Linux-only
# call (a termios ioctl, an mmap flag) is caught on Linux before a user on
# another system finds it. darwin/arm64 covers macOS and the portable
# (non-amd64) code paths, windows/amd64 Windows and the amd64 assembly on a
# second system; darwin/amd64 would add only a third standard library to
# compile from a cold cache (make cross CROSS="darwin/amd64 ..." still can).
CROSS ?= darwin/arm64 windows/amd64
CROSS_VET ?= $(CROSS)

cross:
	@set -e; for p in $(CROSS); do \
		echo "cross: build $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build ./cmd/...; \
	done; for p in $(CROSS_VET); do \
		echo "cross: vet $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) vet ./...; \
	done

# oracle: files written by the Go writer, checked by the independent oracle.
oracle: build deps
	SHARED=$(SHARED) scripts/oracle.sh

# perfetto-check: W1, pipesim and mixed-workload exports checked against the
# official Perfetto schema by $(SHARED)/perfetto/check_pftrace.py.
perfetto-check: build deps-perfetto
	scripts/perfetto_check.sh $(SHARED)

# parquet-check: the Parquet export of W1 and the mixed workload read back
# by DuckDB's Node.js client (npm's @duckdb/node-api, installed under bin/),
# giving the same answers as trace_reader sql on the traces.
parquet-check: build
	scripts/parquet_check.sh

bench:
	$(GO) test -run NONE -bench . -benchtime 1x ./bench
	$(GO) test -run NONE -bench BenchmarkEmit -benchtime 100000000x ./chronon

# speed: every whole-process speed target of the writer and the reader, on a
# 20M-event W1 trace, REPS times each (min / median / max beside the target).
speed:
	REPS=$(REPS) scripts/speed.sh

# schema regenerates schema/fb from schema/TraceSchema.fbs with Debian's flatc.
schema: deps-schema
	rm -rf schema/fb
	flatc --go --go-namespace fb -o schema schema/TraceSchema.fbs
	gofmt -w schema/fb

generate:
	$(GO) generate ./...

# docs: docs/cli.md, every command and option of the three tools, from the
# tables their parsers read (each tool's test fails when it is stale).
TOOLS_CLI := trace_reader tracegen pipesim
docs:
	$(GO) build -o $(BIN)/ $(addprefix ./cmd/,$(TOOLS_CLI))
	$(GO) run ./internal/cli/mkdocs $(addprefix $(BIN)/,$(TOOLS_CLI)) >docs/cli.md.tmp
	mv docs/cli.md.tmp docs/cli.md

# man: the tools' manual pages, from the same tables, as build output (like
# the binaries, made for the version built): bin/man/man1/*.1, read with
# man -l bin/man/man1/trace_reader.1 or MANPATH=bin/man man trace_reader.
man: build
	@mkdir -p $(BIN)/man/man1
	@for t in $(TOOLS_CLI); do $(BIN)/$$t --help-man >$(BIN)/man/man1/$$t.1 || exit 1; echo "$(BIN)/man/man1/$$t.1"; done

# deps-cli: the shells and the man page checker the completion and manual
# page tests use (without them those tests skip, loudly).
deps-cli:
	@command -v zsh >/dev/null && command -v fish >/dev/null && command -v mandoc >/dev/null && command -v groff >/dev/null || { \
		echo "installing zsh fish mandoc groff-base (completion and manual page tests)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zsh fish mandoc groff-base >/dev/null; }

clean:
	rm -rf $(BIN)

# fresh-machine: a clone of HEAD with an empty GOPATH and GOCACHE runs
# `make deps demo` (scripts/fresh_machine.sh; TARGETS="deps test" times the
# test command cold).
fresh-machine:
	scripts/fresh_machine.sh $(TARGETS)

# ---- The C and C++ library (cgo/; cgo/README.md) ----
# lib:     libchronon.so (c-shared) and libchronon.a (c-archive) in CBUILD.
# install: the libraries, chronon.h, chronon.hpp and chronon.pc under
#          $(DESTDIR)$(PREFIX) (lib/, include/, lib/pkgconfig/). chronon.pc
#          links with an rpath to $(PREFIX)/lib, so programs built with
#          pkg-config start without LD_LIBRARY_PATH or ldconfig.
# cbench:  the C benchmarks (emit ns/event, ring hot and cold, next to a floor; W1 from C next to tracegen).
# ctest:   the C/C++ tests (examples, W1 multiset, 8 threads, misuse, TSan).
CBUILD      ?= cgo/build
PREFIX      ?= /usr/local
CBENCH_ARGS ?=
CHRONON_CFLAGS := -O2 -Wall -Wextra -Icgo/include

.PHONY: lib install cbench ctest deps-c

# deps-c installs what the C/C++ tests use beyond Go: gcc and g++ (the
# library and the examples), pkg-config (TestInstall). Without them those
# tests skip, loudly.
deps-c:
	@command -v gcc >/dev/null && command -v g++ >/dev/null && command -v pkg-config >/dev/null || { \
		echo "installing gcc g++ pkg-config (C/C++ API tests)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc g++ pkg-config >/dev/null; }

# lib: the headers' hash goes into CGO_CFLAGS because Go's build cache does
# not hash headers a cgo package includes from another directory
# (golang/go#24355): an edited cgo/include/chronon.h was left out.
# (Go's default when CGO_CFLAGS is unset is -O2 -g.)
lib: export CGO_CFLAGS := $(or $(CGO_CFLAGS),-O2 -g) -DCHRONON_MAKE_HEADERS=$(shell cat cgo/include/* | sha256sum | cut -c1-32)
lib:
	$(GO) build -buildmode=c-shared -ldflags='-extldflags=-Wl,-soname,libchronon.so' -o $(CBUILD)/libchronon.so ./cgo/lib
	$(GO) build -buildmode=c-archive -o $(CBUILD)/libchronon.a ./cgo/lib
	@# go build also writes the prototypes of the Go side; the API is cgo/include/chronon.h.
	rm -f $(CBUILD)/libchronon.h

install: lib
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(CBUILD)/libchronon.so $(DESTDIR)$(PREFIX)/lib/libchronon.so
	install -m 0644 $(CBUILD)/libchronon.a $(DESTDIR)$(PREFIX)/lib/libchronon.a
	install -m 0644 cgo/include/chronon.h cgo/include/chronon.hpp $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' cgo/chronon.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/chronon.pc

cbench: lib
	$(GO) build -o $(BIN)/tracegen ./cmd/tracegen
	$(CC) $(CHRONON_CFLAGS) -o $(CBUILD)/cbench cgo/examples/cbench.c -L$(CBUILD) -lchronon -Wl,-rpath,$(abspath $(CBUILD)) -lpthread
	$(CBUILD)/cbench --tracegen $(BIN)/tracegen $(CBENCH_ARGS)

ctest: deps deps-c
	$(GO) test -count=1 -timeout 10m -v ./cgo/...
