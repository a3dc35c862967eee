// o3_core.cpp - an out-of-order core traced the way a ChampSim adapter
// would trace O3_CPU: instructions through pipeline stages, squashes after a
// mispredicted branch, register dependencies, loads whose L1D misses are
// spans inside their execute stage, in-order retirement, the ROB's
// occupancy sampled on change.
//
//   o3_core OUT.ctrace [CYCLES]
//
// Read it as a pipeline: trace_reader export --format kanata OUT.ctrace -o
// core.kanata (Konata): a row per instruction with its stages, squashed ones
// ended as flushed, the last ones still in flight, an arrow per dependency.
// The events are deterministic: cgo/examples/testdata/o3_core.dump is what
// `trace_reader dump` prints for them (sorted).
//
// The top half is the adapter (what a tracing hook holds and calls); the
// bottom half a toy core standing in for the simulator, shaped like
// ChampSim's: operate() runs the stages in reverse order every cycle
// (retire, complete, execute, dispatch into the ROB, dispatch, decode,
// fetch), instructions are numbered from 0 (instr_id) and keep their place
// in the pipeline in their own record.
#include <chronon.hpp>

#include <cstdio>
#include <cstdlib>
#include <deque>

namespace {

// ---- The adapter ----

enum Stage { fetch, decode, dispatch, schedule, execute, commit };

// Registered once, before main; CHRONON_TEXT counts the placeholders at
// compile time, so a miscounted text does not build.
const chronon::Stages stages({"fetch", "decode", "dispatch", "schedule", "execute", "commit"});
const chronon::Counter rob_occupancy("rob.occupancy");
const chronon::Format<chronon::Flow, chronon::Depends> wakeup(CHRONON_TEXT("wakeup flow={} producer={}"));
const chronon::Format<chronon::Flow, uint64_t, chronon::Symbol> mispredict(CHRONON_TEXT("mispredict flow={} ip=0x{:x} type={}"));
const chronon::Span l1d_fill("l1d.fill"); // a load's miss: MSHR allocation to fill

// ---- A toy core (the simulator) ----

constexpr size_t width = 2, rob_size = 32, dispatch_size = 4;
constexpr uint64_t load_latency = 4, miss_latency = 20;

struct Instr {
	uint64_t id, ip;
	bool load, miss, branch, mispredicted, wrong_path;
	bool has_producer;
	uint64_t producer; // the id of the instruction whose result it reads
	uint64_t ready;    // the cycle its current step is done
	chronon::Inst st;  // the adapter's: where it is in the pipeline
};

class Core {
public:
	explicit Core(chronon::Tracer &tr)
	    : unit_(tr.unit("core0", "O3_CPU")), l1d_(tr.unit("core0.l1d", "CACHE")), rob_occ_(rob_occupancy.on_change(unit_)),
	      conditional_(tr.intern("BRANCH_CONDITIONAL")) {}

	// operate is one cycle, the stages in ChampSim's (reverse) order.
	void operate(uint64_t cycle) {
		retire_rob(cycle);
		complete_inflight(cycle);
		execute_instruction(cycle);
		dispatch_instruction(cycle);
		move(decode_q_, dispatch_q_, dispatch, cycle, dispatch_size);
		move(fetch_q_, decode_q_, decode, cycle, 64);
		fetch_instruction(cycle);
		rob_occ_.sample(cycle, static_cast<int64_t>(rob_.size())); // an event per change, not per cycle
	}

	uint64_t fetched() const { return next_id_; }
	uint64_t retired() const { return retired_; }
	uint64_t squashed() const { return squashed_; }

private:
	void fetch_instruction(uint64_t cycle) {
		for (size_t n = 0; n < width && fetch_q_.size() < 8; n++) {
			uint64_t id = next_id_++;
			Instr in{};
			in.id = id;
			in.ip = 0x400000 + 4 * id;
			in.load = id % 5 == 2;
			in.miss = in.load && id % 3 == 0;
			in.branch = id % 7 == 3;
			in.wrong_path = unresolved_;
			in.mispredicted = in.branch && !in.wrong_path && id / 7 % 4 == 1;
			in.has_producer = id % 3 == 0 && id > 0;
			in.producer = prev_;
			in.ready = cycle + 1;
			in.st = stages.start(id); // flow id + 1: flow 0 means none
			stages.enter(unit_, cycle, in.st, fetch);
			if (in.mispredicted) { // fetch goes down the wrong path until the branch resolves
				mispredict.emit(unit_, cycle, in.st.flow(), in.ip, conditional_);
				unresolved_ = true;
			}
			prev_ = id;
			fetch_q_.push_back(in);
		}
	}

	// move advances ready instructions from one queue into the next stage.
	void move(std::deque<Instr> &from, std::deque<Instr> &to, Stage stage, uint64_t cycle, size_t room) {
		for (size_t n = 0; n < width && !from.empty() && from.front().ready <= cycle && to.size() < room; n++) {
			Instr in = from.front();
			from.pop_front();
			stages.enter(unit_, cycle, in.st, stage);
			in.ready = cycle + 1;
			to.push_back(in);
		}
	}

	// dispatch_instruction: from the dispatch buffer into the ROB, where it
	// waits for its operands (the scheduler).
	void dispatch_instruction(uint64_t cycle) {
		for (size_t n = 0; n < width && !dispatch_q_.empty() && dispatch_q_.front().ready <= cycle && rob_.size() < rob_size; n++) {
			Instr in = dispatch_q_.front();
			dispatch_q_.pop_front();
			stages.enter(unit_, cycle, in.st, schedule);
			rob_.push_back(in);
		}
	}

	// done: has instruction id's result been produced by cycle? (Not in
	// the ROB any more: retired.)
	bool done(uint64_t id, uint64_t cycle) const {
		for (const Instr &p : rob_)
			if (p.id == id)
				return p.st.stage() == commit && p.ready <= cycle;
		return true;
	}

	void execute_instruction(uint64_t cycle) {
		size_t n = 0;
		for (Instr &in : rob_) {
			if (n == width)
				break;
			if (in.st.stage() != schedule || (in.has_producer && !done(in.producer, cycle)))
				continue;
			if (in.has_producer) // the dependency that held it: an arrow in Konata
				wakeup.emit(unit_, cycle, in.st.flow(), chronon::seq_flow(in.producer));
			stages.enter(unit_, cycle, in.st, execute);
			in.ready = cycle + 1;
			if (in.load) {
				in.ready = cycle + load_latency;
				if (in.miss) { // an inner span: execute resumes in Konata when the fill ends
					l1d_fill.between(l1d_, cycle + 1, cycle + 1 + miss_latency, chronon::Lane(0), in.st.flow());
					in.ready += miss_latency;
				}
			}
			n++;
		}
	}

	void complete_inflight(uint64_t cycle) {
		for (size_t i = 0; i < rob_.size(); i++) {
			Instr &in = rob_[i];
			if (in.st.stage() != execute || in.ready > cycle)
				continue;
			stages.enter(unit_, cycle, in.st, commit);
			if (in.mispredicted) {
				squash_younger(in.id, cycle);
				return;
			}
		}
	}

	// squash_younger flushes every instruction fetched after the branch
	// (the wrong path) and sends fetch back to the right one.
	void squash_younger(uint64_t branch, uint64_t cycle) {
		for (std::deque<Instr> *q : {&rob_, &dispatch_q_, &decode_q_, &fetch_q_}) {
			while (!q->empty() && q->back().id > branch) {
				stages.squash(unit_, cycle, q->back().st);
				q->pop_back();
				squashed_++;
			}
		}
		unresolved_ = false;
		prev_ = branch;
	}

	void retire_rob(uint64_t cycle) {
		for (size_t n = 0; n < width && !rob_.empty(); n++) {
			Instr &in = rob_.front();
			if (in.st.stage() != commit || in.ready > cycle)
				break;
			stages.retire(unit_, cycle, in.st);
			rob_.pop_front();
			retired_++;
		}
	}

	chronon::Unit unit_, l1d_;
	chronon::OnChange<int64_t> rob_occ_;
	chronon::Symbol conditional_;
	std::deque<Instr> fetch_q_, decode_q_, dispatch_q_, rob_;
	uint64_t next_id_ = 0, prev_ = 0, retired_ = 0, squashed_ = 0;
	bool unresolved_ = false;
};

} // namespace

int main(int argc, char **argv) {
	if (argc < 2 || argc > 3) {
		std::fprintf(stderr, "usage: o3_core OUT.ctrace [CYCLES]\n");
		return 2;
	}
	uint64_t cycles = argc == 3 ? std::strtoull(argv[2], nullptr, 10) : 100;
	try {
		// One tick is one cycle of a 4 GHz clock: exports show real time.
		chronon::Tracer tr(argv[1], chronon::Options().simulation_name("o3_core").time_base(chronon::hz(4000000000u)).block_size(4096));
		Core core(tr);
		for (uint64_t cycle = 0; cycle < cycles; cycle++)
			core.operate(cycle);
		chronon::Status st = tr.close();
		std::printf("%llu cycles: %llu instructions fetched, %llu retired, %llu squashed, %llu in flight; close: %s\n",
		            static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(core.fetched()),
		            static_cast<unsigned long long>(core.retired()), static_cast<unsigned long long>(core.squashed()),
		            static_cast<unsigned long long>(core.fetched() - core.retired() - core.squashed()), chronon::to_string(st));
		return st == chronon::Status::ok ? 0 : 1;
	} catch (const chronon::Error &e) {
		std::fprintf(stderr, "o3_core: %s\n", e.what());
		return 1;
	}
}
