// chronon.hpp - the C++ API of Chronon in Go (C++17, header-only over
// chronon.h and libchronon).
//
//   chronon::Tracer tr("run.ctrace", chronon::Options().simulation_name("o3"));
//   chronon::Unit fetch = tr.unit("core0.fetch", "FetchUnit");
//   static const chronon::Format<uint64_t, bool> f_fetch("fetch pc=0x{:x} taken={}");
//   f_fetch.emit(fetch, cycle, pc, taken);       // inline, no call into Go
//   tr.close();
//
// Spans, counters and flows (chronon.Span, chronon.Counter, chronon.WithFlow
// in Go): chronon::Span miss("miss"); miss.begin(u, cycle, lane, flow);
// chronon::Counter occ("rob_occupancy"); occ.sample(u, cycle, n);
// Format<uint64_t, chronon::Flow> marks its second argument as a flow id.
// The rest of Go's trace model: Stages and Inst (pipelines: stages, retire,
// squash), AsyncSpan (tasks by id with parents), OnChange (counters sampled
// on change), Tracer::intern and Symbol, time bases, and argument types with
// roles (Depends, SpanId, Parent, Lane). CHRONON_TEXT("...") checks a
// literal's placeholder count at compile time.
//
// Format<Args...> derives the argument types of the file from the C++ types
// at compile time, as the Go runtime's generics do: int8_t..int64_t and
// every other integer type by size and signedness (int -> Int32, long ->
// Int64, char -> Int8/UInt8), float -> Float, double -> Double, bool ->
// Bool, const char* / std::string_view / std::string -> String, any other
// pointer -> Pointer, enums -> their underlying type. emit() takes exactly
// those types, so an argument count or type mismatch does not compile; the
// hot path therefore has no checks at all: mask test, bounds test, stores.
//
// Errors. The constructors that can fail (Tracer, Format) and
// Tracer::unit throw chronon::Error when exceptions are enabled; built with
// -fno-exceptions they never throw and record the status instead (status(),
// and a Unit that tests false). Every operation also has a noexcept form
// that returns a Status (Tracer::open, Format::create, Tracer::new_unit).
// emit() never throws: it returns a Status.
// A Format whose registration failed is inert (its events are never
// recorded: emit returns Status::disabled); a default Unit is a closed one
// (emit returns Status::closed); a default Tracer is no tracer (its calls
// return Status::err_handle). So no object is ever "null" on the hot path.
//
// Lifetimes and threads are those of chronon.h: formats are permanent,
// units belong to their tracer and must not be used after the Tracer is
// destroyed (its destructor closes it and unmaps the rings); one thread
// emits into a unit at a time; close/flush only when no emit is in flight.
#ifndef CHRONON_HPP
#define CHRONON_HPP

// CHRONON_TEXT(literal) is a chronon::Text<N>: the literal with its
// placeholders counted at compile time (see chronon::Text).
#define CHRONON_TEXT(lit) (::chronon::Text<::chronon::detail::count_placeholders(lit)>{lit})

#if __cplusplus < 201703L
#error "chronon.hpp needs C++17 (fold expressions, if constexpr, std::string_view)"
#endif

#include <array>
#include <initializer_list>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "chronon.h"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define CHRONON_HPP_EXCEPTIONS 1
#include <stdexcept>
#else
#define CHRONON_HPP_EXCEPTIONS 0
#endif

namespace chronon {

// Status mirrors chronon_status: 0 ok, positive outcomes, negative errors.
enum class Status : int {
	ok = CHRONON_OK,
	disabled = CHRONON_DISABLED,
	dropped = CHRONON_DROPPED,
	closed = CHRONON_CLOSED,
	err_arg = CHRONON_ERR_ARG,
	err_handle = CHRONON_ERR_HANDLE,
	err_format = CHRONON_ERR_FORMAT,
	err_io = CHRONON_ERR_IO,
	err_internal = CHRONON_ERR_INTERNAL,
};

inline const char *to_string(Status s) noexcept { return chronon_status_string(static_cast<chronon_status>(s)); }
inline bool is_error(Status s) noexcept { return static_cast<int>(s) < 0; }
// last_error is the message of the last error on this thread.
inline const char *last_error() noexcept { return chronon_last_error(); }

enum class Policy : int32_t { block = CHRONON_POLICY_BLOCK, drop = CHRONON_POLICY_DROP };

#if CHRONON_HPP_EXCEPTIONS
// Error is what the throwing forms throw: the status and the library's message.
class Error : public std::runtime_error {
public:
	Error(Status s, const std::string &what) : std::runtime_error(what), status_(s) {}
	Status status() const noexcept { return status_; }

private:
	Status status_;
};
#endif

namespace detail {

inline Status st(chronon_status s) noexcept { return static_cast<Status>(s); }

// raise throws Error for a failed status when exceptions are enabled, and
// does nothing otherwise (the caller has recorded the status).
// why, when not null, is the reason of a check made in C++ (the library's
// last_error() does not know it).
inline void raise(Status s, const char *what, const char *why = nullptr) {
#if CHRONON_HPP_EXCEPTIONS
	if (s != Status::ok)
		throw Error(s, std::string(what) + ": " + to_string(s) + ": " + (why ? why : chronon_last_error()));
#else
	(void)s, (void)what, (void)why;
#endif
}

// ---- Argument traits: C++ type -> file argument type, size, store ----

template <class T>
inline uint8_t *store(uint8_t *p, T v) noexcept {
	std::memcpy(p, &v, sizeof v);
	return p + sizeof v;
}

template <class T, class = void>
struct arg_traits {
	static constexpr bool valid = false;
};

template <class T>
constexpr uint8_t int_type() {
	static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
	              "chronon: integer arguments are 1, 2, 4 or 8 bytes");
	if constexpr (std::is_signed_v<T>)
		return sizeof(T) == 1 ? CHRONON_INT8 : sizeof(T) == 2 ? CHRONON_INT16 : sizeof(T) == 4 ? CHRONON_INT32 : CHRONON_INT64;
	else
		return sizeof(T) == 1 ? CHRONON_UINT8 : sizeof(T) == 2 ? CHRONON_UINT16 : sizeof(T) == 4 ? CHRONON_UINT32 : CHRONON_UINT64;
}

// Fixed-size scalars: integers (not bool), float, double.
template <class T>
struct arg_traits<T, std::enable_if_t<(std::is_integral_v<T> && !std::is_same_v<T, bool>) ||
                                      std::is_same_v<T, float> || std::is_same_v<T, double>>> {
	static constexpr bool valid = true, is_string = false;
	static constexpr uint8_t type = std::is_same_v<T, float> ? CHRONON_FLOAT
	                                : std::is_same_v<T, double> ? CHRONON_DOUBLE
	                                                            : int_type<std::conditional_t<std::is_integral_v<T>, T, int>>();
	static constexpr uint32_t size = sizeof(T);
	using param = T;
	static uint8_t *put(uint8_t *p, T v) noexcept { return store(p, v); }
};

template <>
struct arg_traits<bool> {
	static constexpr bool valid = true, is_string = false;
	static constexpr uint8_t type = CHRONON_BOOL;
	static constexpr uint32_t size = 1;
	using param = bool;
	static uint8_t *put(uint8_t *p, bool v) noexcept {
		*p = v ? 1 : 0;
		return p + 1;
	}
};

// Enums: their underlying integer type.
template <class T>
struct arg_traits<T, std::enable_if_t<std::is_enum_v<T>>> {
	using U = std::underlying_type_t<T>;
	static constexpr bool valid = true, is_string = false;
	static constexpr uint8_t type = arg_traits<U>::type;
	static constexpr uint32_t size = sizeof(U);
	using param = T;
	static uint8_t *put(uint8_t *p, T v) noexcept { return arg_traits<U>::put(p, static_cast<U>(v)); }
};

template <class T>
constexpr bool is_char_ptr = std::is_pointer_v<T> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<T>>, char>;

// Pointers other than char pointers: Pointer (the address, printed 0x...).
template <class T>
struct arg_traits<T, std::enable_if_t<std::is_pointer_v<T> && !is_char_ptr<T>>> {
	static constexpr bool valid = true, is_string = false;
	static constexpr uint8_t type = CHRONON_POINTER;
	static constexpr uint32_t size = 8;
	using param = T;
	static uint8_t *put(uint8_t *p, T v) noexcept { return store(p, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v))); }
};

// Strings: const char* (NUL-terminated; nullptr is ""), std::string_view,
// std::string (taken as a string_view). Stored cut at the first NUL.
struct string_traits {
	static constexpr bool valid = true, is_string = true;
	static constexpr uint8_t type = CHRONON_STRING;
	static constexpr uint32_t size = 0;
	// clip: how many bytes of s to store, at most max (chronon/args.go clipString).
	static size_t clip(const char *s, long max) noexcept {
		return s == nullptr || max <= 0 ? 0 : strnlen(s, static_cast<size_t>(max));
	}
	static size_t clip(std::string_view s, long max) noexcept {
		if (max <= 0)
			return 0;
		size_t n = s.size() < static_cast<size_t>(max) ? s.size() : static_cast<size_t>(max);
		const void *z = n ? std::memchr(s.data(), 0, n) : nullptr;
		return z ? static_cast<size_t>(static_cast<const char *>(z) - s.data()) : n;
	}
	static const char *data(const char *s) noexcept { return s ? s : ""; }
	static const char *data(std::string_view s) noexcept { return s.data(); }
};
template <class T>
struct arg_traits<T, std::enable_if_t<is_char_ptr<T>>> : string_traits {
	using param = const char *;
};
template <>
struct arg_traits<std::string_view> : string_traits {
	using param = std::string_view;
};
template <>
struct arg_traits<std::string> : string_traits {
	using param = std::string_view;
};

} // namespace detail

// Flow is a flow id: an argument of type Flow is a UInt64 in the file whose
// role is "flow" (FormatEntry.arg_roles), which links the event to one
// instruction's other events across units (fetch -> ... -> retire), as
// chronon.WithFlow does in Go. 0 means "no flow" (seq_flow maps sequence
// numbers that start at 0). It converts from uint64_t, so
// emit(u, cycle, pc, id) works; the role is fixed at compile time by the
// Format's type: Format<uint64_t, chronon::Flow> f("issue pc=0x{:x} flow={}").
struct Flow {
	constexpr Flow(uint64_t v = 0) noexcept : id(v) {}
	uint64_t id;
};

// seq_flow maps an instruction's sequence number, which may be 0
// (ChampSim's instr_id), to its flow id, which may not: seq + 1. flow_seq
// is the inverse. Readers show the flow id.
constexpr uint64_t seq_flow(uint64_t seq) noexcept { return seq + 1; }
constexpr uint64_t flow_seq(uint64_t flow) noexcept { return flow - 1; }

// The other argument types with a role, like Flow (at most one of each per
// format, except Symbol):
//
// Depends is the flow id of an instruction that the event's instruction (its
// Flow argument, which the format must have) depends on, say the producer of
// a register it reads: the Kanata export draws an arrow (chronon.WithDepends).
struct Depends {
	constexpr Depends(uint64_t v = 0) noexcept : id(v) {}
	uint64_t id;
};
// SpanId is the id of an async span: on an instant, the open span of the
// event's unit that the event belongs to (a tag, a milestone: exporters draw
// it on that span's row), as chronon.WithSpanID.
struct SpanId {
	constexpr SpanId(uint64_t v = 0) noexcept : id(v) {}
	uint64_t id;
};
// Parent is the id of the span that started this event's span (on a span
// begin) or this event (an instant): a tree edge (chronon.WithParent). 0: none.
struct Parent {
	constexpr Parent(uint64_t v = 0) noexcept : id(v) {}
	uint64_t id;
};
// Lane is a slot of a unit where spans nest (a ROB entry, an MSHR, a port):
// a UInt32 with role lane. Its constructor is explicit, so a lane is never
// an integer passed in the wrong place: span.complete(u, start, dur, Lane(2)).
struct Lane {
	constexpr Lane() noexcept = default;
	constexpr explicit Lane(uint32_t v) noexcept : id(v) {}
	uint32_t id = 0;
};
// Symbol is a string stored once per file (Tracer::intern): a UInt32 with
// role symbol, which our readers print as the string and the original C++
// reader as its number. Only Tracer::intern makes one (the constructor from
// a number is explicit); a default Symbol is overflow ("[symbol table full]").
struct Symbol {
	static constexpr uint32_t overflow = CHRONON_SYMBOL_OVERFLOW;
	constexpr Symbol() noexcept = default;
	constexpr explicit Symbol(uint32_t v) noexcept : id(v) {}
	constexpr bool ok() const noexcept { return id != overflow; }
	uint32_t id = overflow;
};

namespace detail {

// role_arg: the argument types that carry a role.
template <class T>
struct role_arg {
	static constexpr bool value = false;
	static constexpr uint8_t role = CHRONON_ROLE_PLAIN;
};
#define CHRONON__ROLE_ARG(T, R)                        \
	template <>                                       \
	struct role_arg<T> {                              \
		static constexpr bool value = true;           \
		static constexpr uint8_t role = R;            \
	};
CHRONON__ROLE_ARG(Flow, CHRONON_ROLE_FLOW)
CHRONON__ROLE_ARG(Depends, CHRONON_ROLE_DEPENDS)
CHRONON__ROLE_ARG(SpanId, CHRONON_ROLE_ID)
CHRONON__ROLE_ARG(Parent, CHRONON_ROLE_PARENT)
CHRONON__ROLE_ARG(Lane, CHRONON_ROLE_LANE)
CHRONON__ROLE_ARG(Symbol, CHRONON_ROLE_SYMBOL)
#undef CHRONON__ROLE_ARG

template <class T>
struct arg_traits<T, std::enable_if_t<role_arg<T>::value>> {
	using id_type = decltype(T::id);
	static constexpr bool valid = true, is_string = false;
	static constexpr uint8_t type = sizeof(id_type) == 4 ? CHRONON_UINT32 : CHRONON_UINT64;
	static constexpr uint32_t size = sizeof(id_type);
	using param = T;
	static uint8_t *put(uint8_t *p, T v) noexcept { return store(p, v.id); }
};

// role_of is the argument role a C++ type carries (Flow: flow, ...; others: plain).
template <class T>
constexpr uint8_t role_of = role_arg<std::remove_cv_t<T>>::role;

template <class T>
using param_t = typename arg_traits<std::remove_cv_t<T>>::param;
template <class T>
using traits = arg_traits<std::remove_cv_t<T>>;

// count_placeholders counts a format text's placeholders as the library
// does (schema.Placeholders): a '{' that is not the last byte opens one that
// runs to the next '}'; without a closing brace the rest is text.
constexpr size_t count_placeholders(const char *s) noexcept {
	size_t n = 0, i = 0;
	while (s[i] != 0) {
		if (s[i] == '{' && s[i + 1] != 0) {
			size_t j = i + 1;
			while (s[j] != 0 && s[j] != '}')
				j++;
			if (s[j] == 0)
				break;
			n++;
			i = j;
		}
		i++;
	}
	return n;
}

} // namespace detail

// Text<N> is a format text whose N placeholders were counted at compile
// time: CHRONON_TEXT("fetch pc=0x{:x} taken={}") makes one from a string
// literal, and Format<Args...> (Format::create, AsyncSpan's argument text)
// static_asserts that N is its argument count. A namespace-scope Format with
// a wrong count then fails to compile instead of throwing before main.
template <size_t N>
struct Text {
	const char *text;
};

// The kinds of chronon.h, for FormatOptions::kind.
enum class Kind : int32_t {
	instant = CHRONON_KIND_INSTANT,
	span_begin = CHRONON_KIND_SPAN_BEGIN,
	span_end = CHRONON_KIND_SPAN_END,
	span_complete = CHRONON_KIND_SPAN_COMPLETE,
	counter = CHRONON_KIND_COUNTER,
	flush = CHRONON_KIND_FLUSH,
	async_begin = CHRONON_KIND_ASYNC_BEGIN,
	async_end = CHRONON_KIND_ASYNC_END,
	retire = CHRONON_KIND_RETIRE,
};

// TimeBase: one tick (an event's cycle) lasts num/den seconds.
struct TimeBase {
	uint64_t num = 0, den = 0;
};
constexpr TimeBase hz(uint64_t freq) noexcept { return TimeBase{freq != 0 ? 1u : 0u, freq}; }
constexpr TimeBase picoseconds() noexcept { return hz(UINT64_C(1000000000000)); }
constexpr TimeBase nanoseconds() noexcept { return hz(UINT64_C(1000000000)); }

// ---- Options ----

// Options of a Tracer (chronon_options with C++ values). Defaults as in Go.
class Options {
public:
	Options &block_size(uint32_t bytes) { c_.block_size = bytes; return *this; }
	// level follows zstd's scale like the Go runtime's WithLevel: 0 stores
	// blocks raw, 1 fastest, 3 default, up to 22.
	Options &level(int l) { c_.level = l == 0 ? CHRONON_LEVEL_NONE : l; return *this; }
	Options &compression(bool on) { c_.level = on ? 0 : CHRONON_LEVEL_NONE; return *this; }
	Options &ring_size(uint64_t bytes) { c_.ring_size = bytes; return *this; }
	Options &policy(Policy p) { c_.policy = static_cast<int32_t>(p); return *this; }
	Options &compression_workers(int n) { c_.compression_workers = n; return *this; }
	// flush_interval: zero turns the periodic flush off (as in Go).
	Options &flush_interval(std::chrono::nanoseconds d) { c_.flush_interval_ns = d.count() == 0 ? -1 : d.count(); return *this; }
	Options &default_mask(uint64_t m) { c_.default_mask = m; return *this; }
	Options &simulation_name(std::string s) { sim_ = std::move(s); has_sim_ = true; return *this; }
	Options &config_hash(uint64_t h) { c_.config_hash = h; return *this; }
	Options &metadata(std::string key, std::string value) { md_.emplace_back(std::move(key), std::move(value)); return *this; }
	Options &auto_metadata(bool on) { c_.no_auto_metadata = on ? 0 : 1; return *this; }
	// unit_id_base: first automatic unit id (WithUnitIDBase in Go).
	Options &unit_id_base(uint16_t first) { c_.unit_id_base = first; return *this; }
	// select: the record-time selection, CHRONON_TRACE's syntax
	// ("units=core1.*;categories=fetch;cycles=A-B"), replacing the
	// environment's; "" records everything. Without it, CHRONON_TRACE applies.
	Options &select(std::string sel) { sel_ = std::move(sel); has_sel_ = true; return *this; }
	// time_base: how long one tick lasts for every unit (WithTimeBase);
	// Tracer::set_time_base gives a unit its own.
	Options &time_base(TimeBase tb) { c_.time_base.num = tb.num; c_.time_base.den = tb.den; return *this; }
	// symbol_limit: strings Tracer::intern may add (WithSymbolLimit), 1..2^20.
	Options &symbol_limit(uint32_t n) { c_.symbol_limit = n; return *this; }

private:
	friend class Tracer;
	chronon_options c_{};
	std::string sim_, sel_;
	bool has_sim_ = false, has_sel_ = false;
	std::vector<std::pair<std::string, std::string>> md_;
};

// Options of a Unit.
struct UnitOptions {
	UnitOptions &id(uint16_t v) { c.id = v; return *this; }
	UnitOptions &mask(uint64_t m) { c.mask = m; c.has_mask = 1; return *this; }
	UnitOptions &ring_size(uint64_t bytes) { c.ring_size = bytes; return *this; }
	// shared: several threads may emit into the unit at once; every emit
	// on it takes the unit's lock (chronon_unit_lock), the others are
	// unaffected (WithShared in Go).
	UnitOptions &shared(bool on = true) { c.shared = on ? 1 : 0; return *this; }
	chronon_unit_options c{};
};

template <class... Args>
class Format;
class Span;
template <class T = int64_t>
class Counter;
template <class... Args>
class AsyncSpan;
class Stages;
template <class T>
class OnChange;

// Options of a Format (FormatOptions().category(c).kind(...)). Span and
// Counter set kind, roles and name themselves; their other options
// (category, source, name) apply.
class FormatOptions {
	template <class... Args>
	friend class Format;
	friend class Span;
	template <class T>
	friend class Counter;
	template <class... Args>
	friend class AsyncSpan;
	friend class Stages;

public:
	FormatOptions &category(uint64_t mask) { c_.category = mask; return *this; }
	// kind: what the events mean, with one role per argument (CHRONON_ROLE_*)
	// or none; the role types (Flow, Depends, SpanId, Parent, Lane, Symbol)
	// add theirs. FormatOptions().kind(chronon::Kind::retire) on a
	// Format<chronon::Flow> makes retire events.
	FormatOptions &kind(int k, std::vector<uint8_t> roles = {}) { c_.kind = k; roles_ = std::move(roles); return *this; }
	FormatOptions &kind(Kind k, std::vector<uint8_t> roles = {}) { return kind(static_cast<int>(k), std::move(roles)); }
	FormatOptions &name(std::string n) { name_ = std::move(n); has_name_ = true; return *this; }
	FormatOptions &log(int level) { c_.is_log = 1; c_.log_level = level; return *this; }
	FormatOptions &source(std::string file, uint32_t line) { file_ = std::move(file); line_ = line; has_file_ = true; return *this; }

	// c fills a chronon_format_options pointing into this object.
	chronon_format_options c(const char *file, uint32_t line) const noexcept {
		chronon_format_options o = c_;
		o.roles = roles_.empty() ? nullptr : roles_.data();
		o.name = has_name_ ? name_.c_str() : nullptr;
		o.file = has_file_ ? file_.c_str() : file;
		o.line = has_file_ ? line_ : line;
		return o;
	}

private:
	// unnamed: these options without a name (for helpers that name their formats).
	FormatOptions unnamed() const {
		FormatOptions o = *this;
		o.name_.clear();
		o.has_name_ = false;
		return o;
	}

	chronon_format_options c_{};
	std::vector<uint8_t> roles_;
	std::string name_, file_;
	uint32_t line_ = 0;
	bool has_name_ = false, has_file_ = false;
};

// ---- Unit ----

// Unit is a handle to a unit of a Tracer (a pointer: copy it freely). A
// default Unit is closed: emitting into it returns Status::closed.
class Unit {
public:
	Unit() noexcept : u_(&chronon__dead_unit) {}
	explicit Unit(chronon_unit *u) noexcept : u_(u ? u : &chronon__dead_unit) {}

	chronon_unit *raw() const noexcept { return u_; }
	explicit operator bool() const noexcept { return u_ != &chronon__dead_unit; }
	uint16_t id() const noexcept { return chronon_unit_id(u_); }
	uint64_t mask() const noexcept { return chronon_unit_mask(u_); }
	void set_mask(uint64_t m) const noexcept { chronon_unit_set_mask(u_, m); }
	void enable(uint64_t m) const noexcept { chronon_unit_enable(u_, m); }
	void disable(uint64_t m) const noexcept { chronon_unit_disable(u_, m); }
	// flush publishes the unit's partly filled chunk (producer thread only;
	// any thread for a shared unit).
	Status flush() const noexcept { return detail::st(chronon_unit_flush(u_)); }
	// shared: the unit was created with UnitOptions().shared().
	bool shared() const noexcept { return chronon_unit_shared(u_); }
	uint64_t dropped() const noexcept { return __atomic_load_n(&u_->dropped, __ATOMIC_RELAXED); }

private:
	chronon_unit *u_;
};

// ---- Format ----

// Format<Args...> is a registered format whose events take Args. Register
// once (a static or namespace-scope object) and emit from any unit.
template <class... Args>
class Format {
	static_assert((detail::traits<Args>::valid && ...),
	              "chronon::Format: an argument type is not one of: integer, float, double, bool, "
	              "const char*, std::string_view, std::string, pointer, enum");

public:
	static constexpr size_t arity = sizeof...(Args);
	static constexpr uint32_t fixed_size = (0u + ... + detail::traits<Args>::size);
	static constexpr size_t n_strings = (size_t{0} + ... + (detail::traits<Args>::is_string ? 1 : 0));
	static constexpr std::array<uint8_t, arity> types{{detail::traits<Args>::type...}};
	// record bytes 16..24 without the source (chronon_format.argc_word): a
	// constant, so emit_ loads one field of the format fewer. An inert
	// format (registration failed) has category 0 and never gets that far.
	static constexpr uint64_t argc_word = uint64_t{arity} << 16;
	// roles derived from the types (Flow arguments); merged with
	// FormatOptions::kind's roles at registration.
	static constexpr std::array<uint8_t, arity> roles{{detail::role_of<Args>...}};
	static constexpr bool typed_roles = ((detail::role_of<Args> != CHRONON_ROLE_PLAIN) || ...);
	static_assert(arity <= 255, "chronon::Format: at most 255 arguments");
	static_assert((size_t{0} + ... + (detail::role_of<Args> == CHRONON_ROLE_FLOW ? 1 : 0)) <= 1,
	              "chronon::Format: at most one chronon::Flow argument");
	static_assert((size_t{0} + ... + (detail::role_of<Args> == CHRONON_ROLE_DEPENDS ? 1 : 0)) <= 1,
	              "chronon::Format: at most one chronon::Depends argument");
	static_assert((size_t{0} + ... + (detail::role_of<Args> == CHRONON_ROLE_ID ? 1 : 0)) <= 1,
	              "chronon::Format: at most one chronon::SpanId argument");
	static_assert((size_t{0} + ... + (detail::role_of<Args> == CHRONON_ROLE_PARENT ? 1 : 0)) <= 1,
	              "chronon::Format: at most one chronon::Parent argument");
	static_assert((size_t{0} + ... + (detail::role_of<Args> == CHRONON_ROLE_LANE ? 1 : 0)) <= 1,
	              "chronon::Format: at most one chronon::Lane argument");

	// A default Format is inert: never registered, never enabled (emit
	// returns Status::disabled).
	Format() noexcept : f_{} {}

	// Registers text (exactly arity placeholders). On failure it throws
	// Error, or without exceptions leaves the format inert with status()
	// saying why. The source location in the schema defaults to the caller's.
	explicit Format(const char *text, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	                unsigned line = __builtin_LINE())
	    : f_{} {
		const char *why = nullptr;
		st_ = register_(text, o, file, line, why);
		detail::raise(st_, "chronon::Format", why);
	}

	// Registers a text whose placeholders were counted at compile time
	// (CHRONON_TEXT("...")): a count other than the arity does not compile.
	template <size_t N>
	explicit Format(Text<N> text, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	                unsigned line = __builtin_LINE())
	    : Format(text.text, o, file, line) {
		static_assert(N == arity, "chronon::Format: the format text's placeholder count is not the argument count");
	}

	// create registers without throwing; on failure st says why and the
	// returned Format is inert (emit returns Status::disabled).
	static Format create(const char *text, Status &st, const FormatOptions &o = FormatOptions(),
	                     const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
		Format f;
		const char *why = nullptr;
		st = f.st_ = f.register_(text, o, file, line, why);
		return f;
	}
	template <size_t N>
	static Format create(Text<N> text, Status &st, const FormatOptions &o = FormatOptions(),
	                     const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
		static_assert(N == arity, "chronon::Format: the format text's placeholder count is not the argument count");
		return create(text.text, st, o, file, line);
	}

	// status of the registration (Status::ok, or why the format is inert).
	Status status() const noexcept { return st_; }
	uint32_t id() const noexcept { return f_.id; }
	uint64_t category() const noexcept { return f_.category; }
	const chronon_format &c() const noexcept { return f_; }
	bool enabled(Unit u) const noexcept { return chronon_enabled(u.raw(), &f_); }

	// emit records an event at cycle on u when u's mask enables the
	// format's category. Producer thread of u (any thread if u is shared).
	// Returns Status::ok, disabled,
	// dropped or closed.
	Status emit(Unit u, uint64_t cycle, detail::param_t<Args>... args) const noexcept {
		chronon_unit *r = u.raw();
		if (CHRONON_UNLIKELY(r->shared != 0)) { // several producer threads: one at a time
			chronon_unit_lock(r);
			Status s = emit_(r, cycle, args...);
			chronon_unit_unlock(r);
			return s;
		}
		return emit_(r, cycle, args...);
	}

private:
	// emit_ is emit on a unit this thread may write (its own, or a shared
	// one whose lock it holds).
	Status emit_(chronon_unit *r, uint64_t cycle, detail::param_t<Args>... args) const noexcept {
		uint8_t *p = nullptr;
		if constexpr (n_strings == 0) {
			chronon_status s = chronon__begin_at(r, &f_, cycle, f_.id_cat, argc_word, fixed_size, &p);
			if (s != CHRONON_OK)
				return detail::st(s);
			((p = detail::traits<Args>::put(p, args)), ...);
			(void)p;
			return Status::ok;
		} else {
			if ((__atomic_load_n(&r->mask, __ATOMIC_RELAXED) & f_.category) == 0 || cycle - r->win_lo > r->win_span)
				return Status::disabled; // before measuring any string
			// The string layout of the Go runtime (chronon/args.go
			// layoutStrings): cut at the first NUL, truncated so that the
			// event fits max_args, one byte kept per later string.
			uint32_t lens[n_strings];
			long budget = static_cast<long>(r->max_args) - static_cast<long>(fixed_size);
			size_t k = 0;
			(layout<Args>(args, lens, k, budget), ...);
			uint32_t args_size = static_cast<uint32_t>(static_cast<long>(r->max_args) - budget);
			chronon_status s = chronon__begin_at(r, &f_, cycle, f_.id_cat, argc_word, args_size, &p);
			if (s != CHRONON_OK)
				return detail::st(s);
			k = 0;
			((p = put<Args>(p, args, lens, k)), ...);
			(void)p;
			return Status::ok;
		}
	}

private:
	// register_ registers text; why is set when a check made here fails.
	// The roles are FormatOptions::kind's (one per argument, or none) with
	// each role type's role added (Flow, Depends, ...); an option giving
	// such an argument another role is an error, as chronon.WithFlow's in Go.
	Status register_(const char *text, const FormatOptions &o, const char *file, unsigned line, const char *&why) noexcept {
		chronon_format_options co = o.c(file, line);
		if (!o.roles_.empty() && o.roles_.size() != arity) {
			why = "FormatOptions::kind: the roles are not one per argument";
			return Status::err_arg;
		}
		std::array<uint8_t, arity> merged = roles;
		if constexpr (typed_roles) {
			for (size_t i = 0; i < o.roles_.size(); i++) {
				if (merged[i] != CHRONON_ROLE_PLAIN && o.roles_[i] != CHRONON_ROLE_PLAIN && o.roles_[i] != merged[i]) {
					why = "FormatOptions::kind gives an argument of a role type (chronon::Flow, ...) another role";
					return Status::err_arg;
				}
				if (o.roles_[i] != CHRONON_ROLE_PLAIN)
					merged[i] = o.roles_[i];
			}
			co.roles = merged.data();
		}
		return detail::st(chronon_format_register(text, arity ? types.data() : nullptr, arity, &co, &f_));
	}

	template <class A>
	static void layout(detail::param_t<A> v, uint32_t *lens, size_t &k, long &budget) noexcept {
		if constexpr (detail::traits<A>::is_string) {
			long later = static_cast<long>(n_strings - k - 1);
			size_t n = detail::string_traits::clip(v, budget - later - 1);
			lens[k++] = static_cast<uint32_t>(n);
			budget -= static_cast<long>(n) + 1;
		} else {
			(void)v, (void)lens, (void)k, (void)budget;
		}
	}

	template <class A>
	static uint8_t *put(uint8_t *p, detail::param_t<A> v, const uint32_t *lens, size_t &k) noexcept {
		if constexpr (detail::traits<A>::is_string) {
			uint32_t n = lens[k++];
			std::memcpy(p, detail::string_traits::data(v), n);
			p[n] = 0;
			return p + n + 1;
		} else {
			(void)lens, (void)k;
			return detail::traits<A>::put(p, v);
		}
	}

	chronon_format f_;
	Status st_ = Status::err_format;
};

// ---- Spans and counters ----
//
// Span and Counter are the C++ forms of chronon.Span and chronon.Counter
// (chronon/spans.go): ordinary formats whose meaning is recorded in the
// schema (kind and argument roles), so readers print them as text and
// exporters draw slices, flow arrows and counter tracks. Their format
// texts are the Go runtime's, so a C++ and a Go simulator describe a span
// or counter of the same name identically. Like Format: static objects,
// registered once; the constructor throws chronon::Error on failure (or,
// without exceptions, leaves the object inert with status() saying why);
// create() is the noexcept form. Recording is Format::emit: inline, no call.

// Span records intervals on a unit: begin/end pairs, or complete with a
// known duration. A lane is a slot of the unit (a ROB entry, an MSHR, a
// port) where spans nest; flow links the span to an instruction (0: none).
class Span {
public:
	// Registers the span's three formats ("NAME begin lane={} flow={}",
	// "NAME end lane={} flow={}", "NAME lane={} flow={} dur={}"); the display
	// name is name unless o names it. o's category and source apply.
	explicit Span(const char *name, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	              unsigned line = __builtin_LINE())
	    : name_(name ? name : "") {
		const char *why = nullptr;
		st_ = register_(o, file, line, why);
		detail::raise(st_, "chronon::Span", why);
	}

	static Span create(const char *name, Status &st, const FormatOptions &o = FormatOptions(),
	                   const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
		Span s;
		s.name_ = name ? name : "";
		const char *why = nullptr;
		st = s.st_ = s.register_(o, file, line, why);
		return s;
	}

	// A default Span is inert (its calls return Status::disabled).
	Span() noexcept = default;

	// begin opens a span on (u, lane) at cycle.
	Status begin(Unit u, uint64_t cycle, uint32_t lane, Flow flow = Flow()) const noexcept {
		return begin_.emit(u, cycle, lane, flow.id);
	}
	// end closes the innermost open span on (u, lane) at cycle.
	Status end(Unit u, uint64_t cycle, uint32_t lane, Flow flow = Flow()) const noexcept {
		return end_.emit(u, cycle, lane, flow.id);
	}
	// complete records a span of dur cycles starting at start; one whose end
	// is past the last cycle (end - start with end before start) is not
	// recorded: Status::err_arg (last_error() says so).
	Status complete(Unit u, uint64_t start, uint64_t dur, uint32_t lane, Flow flow = Flow()) const noexcept {
		if (start + dur < start)
			return detail::st(chronon__fail(CHRONON_ERR_ARG, "chronon::Span::complete: the span ends past the last cycle (start + dur overflows; not recorded)"));
		return complete_.emit(u, start, lane, flow.id, dur);
	}

	// The same with a typed lane: complete(u, start, dur, Lane(2), flow)
	// cannot take a swapped duration and lane, which the form above would.
	Status begin(Unit u, uint64_t cycle, Lane lane, Flow flow = Flow()) const noexcept { return begin(u, cycle, lane.id, flow); }
	Status end(Unit u, uint64_t cycle, Lane lane, Flow flow = Flow()) const noexcept { return end(u, cycle, lane.id, flow); }
	Status complete(Unit u, uint64_t start, uint64_t dur, Lane lane, Flow flow = Flow()) const noexcept {
		return complete(u, start, dur, lane.id, flow);
	}
	// between records a span from cycle start to cycle end: the end, not a
	// duration, as Span.Between in Go. An end before the start (the two
	// swapped, a stage left before it was entered) is not recorded:
	// Status::err_arg (last_error() says so).
	Status between(Unit u, uint64_t start, uint64_t end, Lane lane = Lane(), Flow flow = Flow()) const noexcept {
		if (end < start)
			return detail::st(chronon__fail(CHRONON_ERR_ARG, "chronon::Span::between: the end is before the start (not recorded)"));
		return complete_.emit(u, start, lane.id, flow.id, end - start);
	}

	const std::string &name() const noexcept { return name_; }
	Status status() const noexcept { return st_; }
	const Format<uint32_t, uint64_t> &begin_format() const noexcept { return begin_; }
	const Format<uint32_t, uint64_t> &end_format() const noexcept { return end_; }
	const Format<uint32_t, uint64_t, uint64_t> &complete_format() const noexcept { return complete_; }

private:
	Status register_(const FormatOptions &o, const char *file, unsigned line, const char *&why) noexcept {
		if (name_.empty()) {
			why = "the span name is empty";
			return Status::err_arg;
		}
		FormatOptions so = o;
		if (!so.has_name_)
			so.name(name_);
		Status s = Status::ok;
		begin_ = Format<uint32_t, uint64_t>::create((name_ + " begin lane={} flow={}").c_str(), s,
		                                            FormatOptions(so).kind(CHRONON_KIND_SPAN_BEGIN, {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW}),
		                                            file, line);
		if (s == Status::ok)
			end_ = Format<uint32_t, uint64_t>::create((name_ + " end lane={} flow={}").c_str(), s,
			                                          FormatOptions(so).kind(CHRONON_KIND_SPAN_END, {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW}),
			                                          file, line);
		if (s == Status::ok)
			complete_ = Format<uint32_t, uint64_t, uint64_t>::create(
			    (name_ + " lane={} flow={} dur={}").c_str(), s,
			    FormatOptions(so).kind(CHRONON_KIND_SPAN_COMPLETE, {CHRONON_ROLE_LANE, CHRONON_ROLE_FLOW, CHRONON_ROLE_DURATION}), file,
			    line);
		if (s != Status::ok) // all or nothing: no half-working span
			begin_ = end_ = {}, complete_ = {};
		return s;
	}

	std::string name_;
	Format<uint32_t, uint64_t> begin_, end_;
	Format<uint32_t, uint64_t, uint64_t> complete_;
	Status st_ = Status::err_format;
};

// OnChange<T> samples a Counter<T> on one unit only when the value changes
// (Counter.OnChange in Go): a queue's occupancy sampled every cycle costs an
// event per change, not per cycle. Make one per (counter, unit) with
// Counter::on_change and use it from the unit's producer thread. The first
// sample is always recorded; values are compared bit for bit.
template <class T>
class OnChange {
public:
	// A default OnChange is inert (its samples return Status::disabled).
	OnChange() noexcept = default;
	OnChange(const Format<T> &f, Unit u) noexcept : f_(f), u_(u) {}

	// sample records v at cycle if it differs from the last value recorded;
	// Status::ok without recording when it does not.
	Status sample(uint64_t cycle, T v) noexcept {
		if (set_ && std::memcmp(&v, &last_, sizeof v) == 0)
			return Status::ok;
		last_ = v;
		set_ = true;
		return f_.emit(u_, cycle, v);
	}

private:
	Format<T> f_;
	Unit u_;
	T last_{};
	bool set_ = false;
};

// Counter<T> records samples of a value over time (queue occupancy, IPC):
// one format "NAME={}" of kind counter whose argument has role value. T is
// an integer type (Counter<> is int64_t, as chronon.Counter) or float /
// double (FloatCounter is Counter<double>, as chronon.FloatCounter).
template <class T>
class Counter {
	static_assert((std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_same_v<T, float> || std::is_same_v<T, double>,
	              "chronon::Counter: the value is an integer, float or double");

public:
	explicit Counter(const char *name, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	                 unsigned line = __builtin_LINE())
	    : name_(name ? name : "") {
		const char *why = nullptr;
		st_ = register_(o, file, line, why);
		detail::raise(st_, "chronon::Counter", why);
	}

	static Counter create(const char *name, Status &st, const FormatOptions &o = FormatOptions(),
	                      const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
		Counter c;
		c.name_ = name ? name : "";
		const char *why = nullptr;
		st = c.st_ = c.register_(o, file, line, why);
		return c;
	}

	// A default Counter is inert (sample returns Status::disabled).
	Counter() noexcept = default;

	// sample records the counter's value v at cycle on u.
	Status sample(Unit u, uint64_t cycle, T v) const noexcept { return f_.emit(u, cycle, v); }

	// on_change returns a sampler of this counter on u that records a
	// value only when it differs from the last one recorded.
	OnChange<T> on_change(Unit u) const noexcept { return OnChange<T>(f_, u); }

	const std::string &name() const noexcept { return name_; }
	Status status() const noexcept { return st_; }
	const Format<T> &format() const noexcept { return f_; }

private:
	Status register_(const FormatOptions &o, const char *file, unsigned line, const char *&why) noexcept {
		if (name_.empty()) {
			why = "the counter name is empty";
			return Status::err_arg;
		}
		FormatOptions co = o;
		if (!co.has_name_)
			co.name(name_);
		Status s = Status::ok;
		f_ = Format<T>::create((name_ + "={}").c_str(), s, co.kind(CHRONON_KIND_COUNTER, {CHRONON_ROLE_VALUE}), file, line);
		return s;
	}

	std::string name_;
	Format<T> f_;
	Status st_ = Status::err_format;
};

using FloatCounter = Counter<double>;

// ---- Async spans: tasks begun and ended by id ----

// AsyncSpan<Args...> records async spans of one name (a task kind), as
// chronon.AsyncSpan / AsyncSpan1..3 in Go: intervals named by an id rather
// than a lane (tasks, transactions, requests), which overlap freely on one
// unit and end in any order. A begin and an end pair by (unit, id); exporters
// pack a unit's async spans into as few rows as are open at once. A begin
// names its parent span (the id of a span of any unit; 0: none): readers
// build the request trees, an arrow per edge, fan-out, depth and critical
// paths. Ids only need to be unique among a unit's open spans.
//
// The begins carry Args too (Symbol for interned strings), whose part of the
// begin's text is arg_text, one placeholder each:
//
//   static const chronon::AsyncSpan<chronon::Symbol, uint32_t> req("req_in", CHRONON_TEXT("what={} bytes={}"));
//   req.begin(u, t, id, parent_id, tr.intern("ReadReq"), 64);
//   req.end(u, t + 40, id);
//
// Registers "NAME begin id={} parent={} ARG_TEXT" and "NAME end id={}",
// display name NAME (Go's texts, kinds and roles). An instant with a SpanId
// argument is drawn on the open span of that id (a tag, a milestone).
template <class... Args>
class AsyncSpan {
public:
	using BeginFormat = Format<SpanId, Parent, Args...>;
	using EndFormat = Format<SpanId>;

	// A default AsyncSpan is inert (its calls return Status::disabled).
	AsyncSpan() noexcept = default;

	// An AsyncSpan whose begins carry no more arguments.
	explicit AsyncSpan(const char *name, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	                   unsigned line = __builtin_LINE())
	    : AsyncSpan(name, nullptr, o, file, line, 0) {
		static_assert(sizeof...(Args) == 0, "chronon::AsyncSpan: give the text of the begin's arguments");
	}
	// arg_text: the begin's arguments' part of its text, counted at compile
	// time (CHRONON_TEXT("what={} bytes={}")), or any string (checked when
	// registering).
	template <size_t N>
	AsyncSpan(const char *name, Text<N> arg_text, const FormatOptions &o = FormatOptions(), const char *file = __builtin_FILE(),
	          unsigned line = __builtin_LINE())
	    : AsyncSpan(name, arg_text.text, o, file, line, 0) {
		static_assert(N == sizeof...(Args), "chronon::AsyncSpan: the argument text's placeholder count is not the argument count");
	}
	AsyncSpan(const char *name, const char *arg_text, const FormatOptions &o = FormatOptions(),
	          const char *file = __builtin_FILE(), unsigned line = __builtin_LINE())
	    : AsyncSpan(name, arg_text, o, file, line, 0) {}

	// create registers without throwing; on failure st says why and the
	// AsyncSpan is inert.
	static AsyncSpan create(const char *name, const char *arg_text, Status &st, const FormatOptions &o = FormatOptions(),
	                        const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) noexcept {
		AsyncSpan a;
		a.name_ = name ? name : "";
		const char *why = nullptr;
		st = a.st_ = a.register_(arg_text, o, file, line, why);
		return a;
	}

	// begin opens span id on u at cycle, a child of span parent (0: none).
	Status begin(Unit u, uint64_t cycle, uint64_t id, uint64_t parent, detail::param_t<Args>... args) const noexcept {
		return begin_.emit(u, cycle, id, parent, args...);
	}
	// end closes span id of u at cycle.
	Status end(Unit u, uint64_t cycle, uint64_t id) const noexcept { return end_.emit(u, cycle, id); }

	const std::string &name() const noexcept { return name_; }
	Status status() const noexcept { return st_; }
	const BeginFormat &begin_format() const noexcept { return begin_; }
	const EndFormat &end_format() const noexcept { return end_; }

private:
	AsyncSpan(const char *name, const char *arg_text, const FormatOptions &o, const char *file, unsigned line, int)
	    : name_(name ? name : "") {
		const char *why = nullptr;
		st_ = register_(arg_text, o, file, line, why);
		detail::raise(st_, "chronon::AsyncSpan", why);
	}

	Status register_(const char *arg_text, const FormatOptions &o, const char *file, unsigned line, const char *&why) noexcept {
		if (name_.empty()) {
			why = "the span name is empty";
			return Status::err_arg;
		}
		FormatOptions so = o;
		if (!so.has_name_)
			so.name(name_);
		// Go's asyncText: the arguments' text after the id and parent.
		std::string text = name_ + " begin id={} parent={}";
		if (sizeof...(Args) > 0 || (arg_text != nullptr && arg_text[0] != 0))
			text += std::string(" ") + (arg_text ? arg_text : "");
		Status s = Status::ok;
		begin_ = BeginFormat::create(text.c_str(), s, FormatOptions(so).kind(Kind::async_begin), file, line);
		if (s == Status::ok)
			end_ = EndFormat::create((name_ + " end id={}").c_str(), s, FormatOptions(so).kind(Kind::async_end), file, line);
		if (s != Status::ok)
			begin_ = {}, end_ = {};
		return s;
	}

	std::string name_;
	BeginFormat begin_;
	EndFormat end_;
	Status st_ = Status::err_format;
};

// ---- Instructions in a pipeline ----

// Inst is an instruction's place in a pipeline (Stages), kept by the
// simulator in its own instruction record: no map, no allocation. Make it
// with Stages::start.
class Inst {
public:
	Inst() noexcept = default;
	// flow is the instruction's flow id (seq_flow of its sequence number):
	// pass it as the Flow argument of its other events.
	uint64_t flow() const noexcept { return flow_; }
	// stage is the index of the stage it is in, or -1.
	int stage() const noexcept { return stage_; }

private:
	friend class Stages;
	chronon_unit *unit_ = nullptr; // of the open stage
	uint64_t since_ = 0;
	uint64_t flow_ = 0;
	int32_t stage_ = -1;
};

// Stages records instructions going through a pipeline's stages as complete
// spans on their flows, as chronon.Stages in Go: enter moves an instruction
// into a stage and closes the one it was in (a span from its entry to now, on
// its unit), retire and squash end it with events of kinds retire and flush.
// The Kanata export then shows one row per instruction with its stages, ended
// as retired or flushed; once a trace has retire events, instructions with
// none are shown in flight at the end. An inner span (a cache miss recorded
// as a Span with the instruction's flow) does not end its stage.
//
//   static const chronon::Stages pipe({"fetch", "decode", "execute", "commit"});
//   in.st = pipe.start(in.id);                 // flow = in.id + 1
//   pipe.enter(core, cycle, in.st, EXECUTE);   // an index or an enum
//   pipe.retire(core, cycle, in.st);
//
// Registers a Span per stage name (a name containing "stall" is drawn over
// the stages in Konata), "retire flow={}" and "squash flow={}"; the options
// apply to all (but their name). One thread drives an instruction at a time.
class Stages {
public:
	// A default Stages is inert (its calls return Status::disabled).
	Stages() noexcept = default;

	Stages(std::initializer_list<const char *> names, const FormatOptions &o = FormatOptions(),
	       const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
		std::vector<std::string> v(names.begin(), names.end());
		const char *why = nullptr;
		st_ = register_(v, o, file, line, why);
		detail::raise(st_, "chronon::Stages", why);
	}
	explicit Stages(const std::vector<std::string> &names, const FormatOptions &o = FormatOptions(),
	                const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
		const char *why = nullptr;
		st_ = register_(names, o, file, line, why);
		detail::raise(st_, "chronon::Stages", why);
	}

	// create registers without throwing; on failure st says why and the
	// Stages is inert.
	static Stages create(const std::vector<std::string> &names, Status &st, const FormatOptions &o = FormatOptions(),
	                     const char *file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
		Stages s;
		const char *why = nullptr;
		st = s.st_ = s.register_(names, o, file, line, why);
		return s;
	}

	// start makes an instruction of sequence number seq (0 allowed: its
	// flow is seq_flow(seq)) that is in no stage yet.
	Inst start(uint64_t seq) const noexcept {
		Inst in;
		in.flow_ = seq_flow(seq);
		return in;
	}

	// enter moves the instruction into stage i (an index or an enum) on
	// unit u at cycle: the stage it was in ends there. Returns that stage
	// span's status (ok if there was none), or err_arg, with nothing done,
	// for an index out of range (disabled for an inert Stages).
	template <class I, class = std::enable_if_t<std::is_integral_v<I> || std::is_enum_v<I>>>
	Status enter(Unit u, uint64_t cycle, Inst &in, I i) const noexcept {
		uint64_t k;
		if constexpr (std::is_enum_v<I>)
			k = static_cast<uint64_t>(static_cast<std::underlying_type_t<I>>(i)); // a negative one is out of range
		else
			k = static_cast<uint64_t>(i);
		if (spans_.empty())
			return Status::disabled; // inert
		if (k >= spans_.size())
			return detail::st(chronon__fail(CHRONON_ERR_ARG, "chronon::Stages::enter: stage index out of range"));
		Status s = leave(cycle, in);
		in.unit_ = u.raw();
		in.since_ = cycle;
		in.stage_ = static_cast<int32_t>(k);
		return s;
	}

	// leave ends the instruction's stage at cycle (a bubble until its next
	// enter); ok when it is in none, err_arg (no span) when cycle is before
	// the stage's entry.
	Status leave(uint64_t cycle, Inst &in) const noexcept {
		if (in.stage_ < 0)
			return Status::ok;
		int32_t i = in.stage_;
		in.stage_ = -1;
		return spans_[static_cast<size_t>(i)].between(Unit(in.unit_), in.since_, cycle, Lane(), in.flow_);
	}

	// retire ends the instruction's stage and records its retirement
	// (commit) on u at cycle; squash records it as squashed (a wrong-path
	// instruction flushed from the pipeline). Each returns the first status
	// other than ok of its two events.
	Status retire(Unit u, uint64_t cycle, Inst &in) const noexcept {
		Status a = leave(cycle, in);
		Status b = retire_.emit(u, cycle, in.flow_);
		return a != Status::ok ? a : b;
	}
	Status squash(Unit u, uint64_t cycle, Inst &in) const noexcept {
		Status a = leave(cycle, in);
		Status b = squash_.emit(u, cycle, in.flow_);
		return a != Status::ok ? a : b;
	}

	// span is stage i's span (for stats, or spans of its own).
	const Span &span(size_t i) const noexcept { return spans_[i]; }
	size_t size() const noexcept { return spans_.size(); }
	Status status() const noexcept { return st_; }

private:
	Status register_(const std::vector<std::string> &names, const FormatOptions &o, const char *file, unsigned line,
	                 const char *&why) noexcept {
		if (names.empty() || names.size() > 65535) {
			why = "stages need 1 to 65535 names";
			return Status::err_arg;
		}
		for (size_t i = 0; i < names.size(); i++)
			for (size_t j = 0; j < i; j++)
				if (names[i] == names[j]) {
					why = "a stage is named twice";
					return Status::err_arg;
				}
		FormatOptions so = o.unnamed();
		std::vector<Span> spans;
		spans.reserve(names.size());
		Status s = Status::ok;
		for (size_t i = 0; i < names.size() && s == Status::ok; i++)
			spans.push_back(Span::create(names[i].c_str(), s, so, file, line));
		Format<Flow> retire, squash;
		if (s == Status::ok)
			retire = Format<Flow>::create("retire flow={}", s, FormatOptions(so).kind(Kind::retire), file, line);
		if (s == Status::ok)
			squash = Format<Flow>::create("squash flow={}", s, FormatOptions(so).kind(Kind::flush), file, line);
		if (s != Status::ok)
			return s;
		spans_ = std::move(spans);
		retire_ = retire;
		squash_ = squash;
		return s;
	}

	std::vector<Span> spans_;
	Format<Flow> retire_, squash_;
	Status st_ = Status::err_format;
};

// ---- Tracer ----

// Stats of a tracer: totals and one entry per unit, in creation order.
struct Stats {
	chronon_stats total{};
	std::vector<chronon_unit_stats> units;
};

// Tracer owns one .ctrace file. Move-only; the destructor closes the
// tracer if it is open and unmaps its units (destroy).
class Tracer {
public:
	Tracer() noexcept = default;

	// Opens path. On failure it throws Error, or without exceptions leaves
	// the Tracer empty with status() saying why.
	explicit Tracer(const std::string &path, const Options &o = Options()) {
		st_ = open_(path.c_str(), o);
		detail::raise(st_, "chronon::Tracer");
	}

	// open creates a tracer without throwing; on failure st says why and the
	// Tracer is empty (its calls return Status::err_handle).
	static Tracer open(const char *path, const Options &o, Status &st) noexcept {
		Tracer t;
		st = t.st_ = t.open_(path, o);
		return t;
	}

	Tracer(const Tracer &) = delete;
	Tracer &operator=(const Tracer &) = delete;
	Tracer(Tracer &&o) noexcept : t_(o.t_), st_(o.st_) { o.t_.id = 0; }
	Tracer &operator=(Tracer &&o) noexcept {
		if (this != &o) {
			destroy();
			t_ = o.t_;
			st_ = o.st_;
			o.t_.id = 0;
		}
		return *this;
	}
	~Tracer() { destroy(); }

	chronon_tracer handle() const noexcept { return t_; }
	bool valid() const noexcept { return t_.id != 0; }
	// status of the open (Status::ok, or why the Tracer is empty).
	Status status() const noexcept { return st_; }

	// unit creates a unit. On failure it throws Error, or without
	// exceptions returns a closed Unit (it tests false; last_error() says why).
	Unit unit(const std::string &name, const std::string &type_name = std::string(),
	          const UnitOptions &o = UnitOptions()) {
		Unit u;
		detail::raise(new_unit(u, name.c_str(), type_name.c_str(), o), "chronon::Tracer::unit");
		return u;
	}

	// new_unit creates a unit without throwing (out stays a closed Unit on failure).
	Status new_unit(Unit &out, const char *name, const char *type_name = nullptr,
	                const UnitOptions &o = UnitOptions()) noexcept {
		chronon_unit *u = nullptr;
		Status s = detail::st(chronon_unit_create(t_, name, type_name, &o.c, &u));
		out = Unit(s == Status::ok ? u : nullptr);
		return s;
	}

	Status flush() noexcept { return detail::st(chronon_flush(t_)); }
	Status sync() noexcept { return detail::st(chronon_sync(t_)); }
	Status close() noexcept { return detail::st(chronon_close(t_)); }
	Status error() const noexcept { return detail::st(chronon_tracer_error(t_)); }

	// destroy closes (if open) and unmaps; the Tracer becomes empty.
	Status destroy() noexcept {
		if (t_.id == 0)
			return Status::ok;
		Status s = detail::st(chronon_destroy(t_));
		t_.id = 0;
		return s;
	}

	// stats returns the counters (empty on error: see last_error()).
	Stats stats() const {
		Stats s;
		if (chronon_get_stats(t_, &s.total, nullptr, 0) != CHRONON_OK)
			return s;
		s.units.resize(s.total.n_units);
		chronon_get_stats(t_, &s.total, s.units.data(), s.units.size());
		s.units.resize(s.total.n_units < s.units.size() ? s.total.n_units : s.units.size());
		return s;
	}

	Status unit_stats(Unit u, chronon_unit_stats &out) const noexcept {
		return detail::st(chronon_get_unit_stats(t_, u.raw(), &out));
	}

	// intern returns the symbol of s in this tracer, adding it to the file's
	// symbol table the first time (a call into the library: intern once
	// and keep the Symbol). Symbol() (overflow) when the table is full (see
	// Options::symbol_limit) or on error (last_error() says why).
	Symbol intern(std::string_view s) noexcept {
		Symbol out;
		intern(s, out);
		return out;
	}
	Status intern(std::string_view s, Symbol &out) noexcept {
		uint32_t id = Symbol::overflow;
		Status st = detail::st(chronon_intern_n(t_, s.data() ? s.data() : "", s.size(), &id));
		out = Symbol(id);
		return st;
	}

	// set_time_base gives unit u a clock of its own (Unit.SetTimeBase in Go).
	Status set_time_base(Unit u, TimeBase tb) noexcept {
		chronon_time_base c;
		c.num = tb.num;
		c.den = tb.den;
		return detail::st(chronon_unit_set_time_base(t_, u.raw(), c));
	}

private:
	Status open_(const char *path, const Options &o) noexcept {
		chronon_options c = o.c_;
		std::vector<chronon_kv> kv;
		kv.reserve(o.md_.size());
		for (const auto &p : o.md_)
			kv.push_back(chronon_kv{p.first.c_str(), p.second.c_str()});
		c.simulation_name = o.has_sim_ ? o.sim_.c_str() : nullptr;
		c.select = o.has_sel_ ? o.sel_.c_str() : nullptr;
		c.metadata = kv.empty() ? nullptr : kv.data();
		c.n_metadata = kv.size();
		return detail::st(chronon_open(&t_, path, &c));
	}

	chronon_tracer t_{};
	Status st_ = Status::err_handle;
};

// register_category names the next free category bit (for the schema) and
// returns its mask in mask.
inline Status register_category(const char *name, const char *description, uint64_t &mask) noexcept {
	return detail::st(chronon_category_register(name, description, &mask));
}

} // namespace chronon

#endif // CHRONON_HPP
