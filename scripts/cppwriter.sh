#!/usr/bin/env bash
# cppwriter.sh builds, from the original C++ Chronon (the last commit before
# it dropped .ctrace), its writer (BinaryTraceWriter) around
# scripts/cppwriter/w1_writer.cpp, which writes the W1 workload with it, for
# side-by-side CPU figures (docs/performance.md, scripts/cpucompare.sh), and
# its trace_reader, to check that it reads our files. MIRROR is a clone of
# github.com/chronon-sim/chronon (a bare one will do); nothing of it is
# committed here.
#
#   scripts/cppwriter.sh MIRROR [OUTDIR]      # default bin/ (MIRROR: e.g. a
#                                             # git clone --bare of the original)
#   bin/cpp_w1_writer 20000000 16 /tmp/cpp.ctrace [LEVEL]
#   bin/cpp_trace_reader info FILE            # the original reader
#
# Needs g++, flatc and the flatbuffers and zstd headers (Debian:
# flatbuffers-compiler libflatbuffers-dev libzstd-dev).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 MIRROR [OUTDIR]" >&2; exit 2; }
for tool in g++ flatc git; do
	command -v "$tool" >/dev/null || { echo "cppwriter.sh: needs $tool (Debian: g++ flatbuffers-compiler libflatbuffers-dev libzstd-dev)" >&2; exit 1; }
done
here=$(cd "$(dirname "$0")" && pwd)
mirror=$1
out=${2:-$(cd "$here/.." && pwd)/bin}
commit=${CPP_COMMIT:-8ffd12f^} # "Unify tracing on Perfetto" removed .ctrace
gitdir=$mirror/.git
[ -d "$gitdir" ] || gitdir=$mirror
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
mkdir -p "$src/observe" "$src/tools"
for f in BinaryTraceWriter.cpp BinaryTraceWriter.hpp BinaryTraceReader.cpp BinaryTraceReader.hpp \
	CompressionBuffer.cpp CompressionBuffer.hpp FormatRegistry.hpp Types.hpp ArgFormat.hpp TraceSchema.fbs; do
	git --git-dir="$gitdir" show "$commit:src/observe/$f" >"$src/observe/$f"
done
git --git-dir="$gitdir" show "$commit:src/tools/trace_reader.cpp" >"$src/tools/trace_reader.cpp"
flatc --cpp -o "$src/observe" "$src/observe/TraceSchema.fbs"
mkdir -p "$out"
flags=(-std=c++20 -O3 -DNDEBUG -I"$src" -I"$src/observe")
g++ "${flags[@]}" -o "$out/cpp_w1_writer" "$here/cppwriter/w1_writer.cpp" \
	"$src/observe/BinaryTraceWriter.cpp" "$src/observe/CompressionBuffer.cpp" -lzstd
g++ "${flags[@]}" -o "$out/cpp_trace_reader" "$src/tools/trace_reader.cpp" \
	"$src/observe/BinaryTraceReader.cpp" "$src/observe/BinaryTraceWriter.cpp" "$src/observe/CompressionBuffer.cpp" -lzstd
echo "built $out/cpp_w1_writer and $out/cpp_trace_reader from $mirror at $commit"
