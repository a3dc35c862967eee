// w1_writer writes the W1 workload (internal/workload, internal/ctracetest:
// the same SplitMix64 stream, formats, units and event order) with the
// original C++ Chronon's BinaryTraceWriter, single-threaded as that writer
// is, so that its process CPU can be compared with ours side by side.
// scripts/cppwriter.sh builds it against a fetched copy of the original.
//
//   w1_writer EVENTS UNITS OUT [LEVEL]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "BinaryTraceWriter.hpp"
#include "FormatRegistry.hpp"

using namespace chronon::observe;

namespace {

struct SplitMix64 {
    uint64_t state;
    uint64_t next() {
        state += 0x9E3779B97F4A7C15ULL;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
};

const char* kKinds[8] = {"fetch", "decode", "rename", "rob", "lsu", "l1d", "l2", "dram"};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: w1_writer EVENTS UNITS OUT [LEVEL]\n");
        return 2;
    }
    const uint64_t n = std::strtoull(argv[1], nullptr, 10);
    const int units = std::atoi(argv[2]);
    BinaryTraceConfig cfg;
    if (argc > 4) {
        cfg.compression_level = std::atoi(argv[4]);
        cfg.compression_enabled = cfg.compression_level > 0;
    }
    auto& reg = FormatRegistry::instance();
    const FormatId fetch = reg.registerFormat("fetch pc=0x{:x} taken={}", __FILE__, __LINE__,
                                              {ArgType::UInt64, ArgType::Bool});
    const FormatId decode = reg.registerFormat("decode uop={} srcs={} dst={}", __FILE__, __LINE__,
                                               {ArgType::UInt32, ArgType::UInt8, ArgType::Int16});
    std::vector<std::string> names(units + 1), types(units + 1);
    for (int u = 1; u <= units; ++u) {
        names[u] = "core" + std::to_string((u - 1) / 8) + "." + kKinds[(u - 1) % 8];
        types[u] = std::string(kKinds[(u - 1) % 8]) + "Unit";
    }
    BinaryTraceWriter w(cfg);
    w.setSourceNameLookup([&](uint16_t id) -> std::string_view {
        return id >= 1 && id <= units ? std::string_view(names[id]) : std::string_view();
    });
    w.setUnitTypeLookup([&](uint16_t id) -> std::string_view {
        return id >= 1 && id <= units ? std::string_view(types[id]) : std::string_view();
    });
    w.setSimulationName("w1");
    if (!w.open(argv[3])) {
        std::fprintf(stderr, "w1_writer: cannot open %s\n", argv[3]);
        return 1;
    }
    SplitMix64 rng{1};
    uint64_t cycle = 1000;
    std::byte args[16];
    for (uint64_t i = 0; i < n; ++i) {
        if (rng.next() % 3 == 0) {
            cycle += rng.next() % 5;
        }
        StructuredRecord r{};
        r.cycle = cycle;
        r.category = 2;
        r.source_id = static_cast<uint16_t>(1 + i % units);
        size_t len;
        if (i % 2 == 0) {
            r.format_id = fetch;
            r.arg_count = 2;
            uint64_t pc = 0x400000 + (i * 4) % 65536;
            bool taken = (rng.next() & 1) != 0;
            std::memcpy(args, &pc, 8);
            std::memcpy(args + 8, &taken, 1);
            len = 9;
        } else {
            r.format_id = decode;
            r.arg_count = 3;
            uint32_t uop = static_cast<uint32_t>(rng.next());
            uint8_t srcs = static_cast<uint8_t>(rng.next());
            int16_t dst = static_cast<int16_t>(rng.next());
            std::memcpy(args, &uop, 4);
            std::memcpy(args + 4, &srcs, 1);
            std::memcpy(args + 5, &dst, 2);
            len = 7;
        }
        w.writeEvent(&r, args, len);
    }
    w.close();
    return 0;
}
