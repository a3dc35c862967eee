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

.PHONY: all build demo test test-go vet fuzz-smoke fuzz oracle perfetto-check deps deps-perfetto deps-schema schema bench speed generate clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# deps installs the Debian packages the tests use: python3-zstandard for the
# conformance oracle (and the libzstd cross-checks).
deps:
	@$(PYTHON) -c 'import zstandard' 2>/dev/null || { \
		echo "installing python3-zstandard (conformance oracle)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-zstandard >/dev/null; }

# deps-perfetto: protoc and the Python protobuf runtime, for the official
# Perfetto schema checks (make perfetto-check).
deps-perfetto:
	@command -v protoc >/dev/null && $(PYTHON) -c 'import google.protobuf' 2>/dev/null || { \
		echo "installing protobuf-compiler and python3-protobuf (Perfetto schema checks)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq protobuf-compiler python3-protobuf >/dev/null; }

deps-schema:
	@command -v flatc >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq flatbuffers-compiler >/dev/null; }

# demo: a 2M-event W1 trace written by the Go runtime, then read back.
demo: build
	@mkdir -p $(BIN)/demo
	$(BIN)/tracegen --workload w1 --events $(DEMO_N) --units 16 -o $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader info -v $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader dump --limit 10 $(BIN)/demo/w1.ctrace
	$(BIN)/trace_reader filter --unit core1.l2 --cycles 500000-500200 $(BIN)/demo/w1.ctrace

# test: vet, every unit/property/golden test under the race detector, and a
# short run of every fuzz target (longer runs: make fuzz FUZZTIME=10m).
test: deps vet test-go fuzz-smoke

vet:
	$(GO) vet ./...

test-go:
	$(GO) test -race -count=1 -timeout 15m ./...

fuzz-smoke:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# oracle: files written by the Go writer, checked by the independent oracle.
oracle: build deps
	SHARED=$(SHARED) scripts/oracle.sh

# perfetto-check: W1, pipesim and mixed-workload exports checked against the
# official Perfetto schema by $(SHARED)/perfetto/check_pftrace.py.
perfetto-check: build deps-perfetto
	scripts/perfetto_check.sh $(SHARED)

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

clean:
	rm -rf $(BIN)

# ---- The C and C++ library (cgo/; cgo/README.md) ----
# lib:     libchronon.so (c-shared) and libchronon.a (c-archive) in CBUILD.
# install: the libraries, chronon.h, chronon.hpp and chronon.pc under
#          $(DESTDIR)$(PREFIX) (lib/, include/, lib/pkgconfig/).
# cbench:  the C benchmarks (emit ns/event; W1 from C next to tracegen).
# ctest:   the C/C++ tests (examples, W1 multiset, 8 threads, misuse, TSan).
CBUILD      ?= cgo/build
PREFIX      ?= /usr/local
CBENCH_ARGS ?=
CHRONON_CFLAGS := -O2 -Wall -Wextra -Icgo/include

.PHONY: lib install cbench ctest

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

ctest: deps
	$(GO) test -count=1 -timeout 10m -v ./cgo/...
