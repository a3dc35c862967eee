#!/usr/bin/env bash
# Independent read-back of the Parquet export: W1 and the mixed workload are
# exported with `trace_reader export --format parquet`, and a few queries
# must give the same answers in `trace_reader sql` on the .ctrace and in
# DuckDB's Node.js client (@duckdb/node-api, installed with npm into
# bin/npm-duckdb, not the repository) on the Parquet files. Then 8 ranks
# exported at once into one dataset (--dataset: Hive partitions) must give
# the answers of `trace_reader sql` on the 8 files in DuckDB's client and in
# Polars' (nodejs-polars, into bin/npm-polars).
# usage: scripts/parquet_check.sh   (after make build; make parquet-check does both)
set -euo pipefail
cd "$(dirname "$0")/.."
for b in tracegen trace_reader; do
	if [ ! -x "bin/$b" ]; then
		echo "parquet_check.sh: bin/$b is missing: run make build first" >&2
		exit 1
	fi
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "parquet_check.sh: installing nodejs and npm (Debian)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
fi
NODE_API_VERSION=${NODE_API_VERSION:-1.5.6-r.1}
npmdir=bin/npm-duckdb
if [ ! -d "$npmdir/node_modules/@duckdb/node-api" ]; then
	echo "parquet_check.sh: installing @duckdb/node-api@$NODE_API_VERSION into $npmdir"
	mkdir -p "$npmdir"
	npm install --silent --no-audit --no-fund --prefix "$npmdir" "@duckdb/node-api@$NODE_API_VERSION" >/dev/null
fi
POLARS_VERSION=${POLARS_VERSION:-0.25.2}
polarsdir=bin/npm-polars
if [ ! -d "$polarsdir/node_modules/nodejs-polars-linux-x64-gnu" ]; then
	echo "parquet_check.sh: installing nodejs-polars@$POLARS_VERSION into $polarsdir"
	mkdir -p "$polarsdir"
	npm install --silent --no-audit --no-fund --prefix "$polarsdir" "nodejs-polars@$POLARS_VERSION" "nodejs-polars-linux-x64-gnu@$POLARS_VERSION" >/dev/null
fi
cp scripts/parquet_check.mjs "$npmdir/parquet_check.mjs" # resolves the module from $npmdir
cp scripts/parquet_dataset_check.mjs "$npmdir/parquet_dataset_check.mjs"
cp scripts/parquet_dataset_check.mjs "$polarsdir/parquet_dataset_check.mjs"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bin/tracegen --workload w1 --events 300000 --units 16 -o "$out/w1.ctrace" >/dev/null
bin/tracegen --workload mixed --events 30000 --units 8 -o "$out/mixed.ctrace" >/dev/null

cat >"$out/w1.sql" <<'SQL'
SELECT unit, count(*) AS n, sum(cycle) AS s FROM events GROUP BY unit ORDER BY unit
--
SELECT format, format_id, count(*) AS n, min(cycle) AS lo, max(cycle) AS hi FROM events GROUP BY ALL ORDER BY format
--
SELECT count(*) AS n, count(*) FILTER (WHERE taken) AS taken, sum(pc) AS pcs FROM fetch_
--
SELECT unit, count(*) AS n, sum(dst) AS d, min(srcs) AS s, max(uop) AS u FROM decode WHERE cycle BETWEEN 50000 AND 90000 GROUP BY unit ORDER BY unit
--
SELECT cycle, unit, pc, taken FROM fetch_ ORDER BY cycle, unit_id LIMIT 20
SQL
cat >"$out/mixed.sql" <<'SQL'
SELECT unit, count(*) AS n FROM events GROUP BY unit ORDER BY unit
--
SELECT count(*) AS n, sum(i8) AS a, sum(i16) AS b, sum(i32) AS c, sum(i64) AS d, min(i64) AS e FROM ints
--
SELECT count(*) AS n, sum(u8) AS a, sum(u16) AS b, sum(u32) AS c, sum(u64) AS d, max(u64) AS e FROM uints
--
SELECT count(*) AS n, sum(f::DECIMAL(38,6))::VARCHAR AS f, sum(d::DECIMAL(38,6))::VARCHAR AS d, sum(p) AS p, count(*) FILTER (WHERE ok) AS ok FROM float_
--
SELECT count(*) AS n, sum(length(msg)) AS chars, max(length(msg)) AS longest, sum(len) AS lens, md5(string_agg(msg, '|' ORDER BY cycle, unit_id, msg)) AS digest FROM msg
SQL

fail=0
for name in w1 mixed; do
	bin/trace_reader export --format parquet -o "$out/$name.pq" "$out/$name.ctrace"
	node "$npmdir/parquet_check.mjs" "$out/$name.pq" "$out/$name.sql" >"$out/$name.node"
	: >"$out/$name.ours"
	# The same queries, one at a time, through trace_reader sql on the trace.
	awk -v RS='\n--\n' -v dir="$out" -v name="$name" '{ f = dir "/" name ".q" NR; printf "%s", $0 > f; close(f) } END { print NR > (dir "/" name ".count") }' "$out/$name.sql"
	for i in $(seq 1 "$(cat "$out/$name.count")"); do
		bin/trace_reader sql --csv "$out/$name.ctrace" -c "$(cat "$out/$name.q$i")" >>"$out/$name.ours"
		echo -- >>"$out/$name.ours"
	done
	if diff -u "$out/$name.ours" "$out/$name.node" >"$out/$name.diff"; then
		echo "parquet-check: $name: $(grep -c '^--$' "$out/$name.ours") queries agree (trace_reader sql on the trace, DuckDB node-api on the Parquet files)"
	else
		echo "parquet-check: $name: trace_reader sql and node-api on Parquet DIFFER:" >&2
		cat "$out/$name.diff" >&2
		fail=1
	fi
done

# A dataset of 8 ranks, exported concurrently (as 8 machines would, into
# shared storage), read whole with Hive partitioning.
mkdir "$out/ranks"
for i in 0 1 2 3 4 5 6 7; do
	bin/tracegen --workload w1 --events $((20000 + 1000 * i)) --units 4 --unit-id-base $((1 + 4 * i)) -o "$out/ranks/rank$i.ctrace" >/dev/null 2>>"$out/tracegen.log"
done
pids=()
for i in 0 1 2 3 4 5 6 7; do
	bin/trace_reader export --format parquet --dataset "$out/ds" "$out/ranks/rank$i.ctrace" >/dev/null &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || { echo "parquet-check: a concurrent dataset export failed" >&2; fail=1; }
done
cat >"$out/ds.sql" <<'SQL'
SELECT trace, count(*) AS n, sum(cycle) AS s, min(cycle) AS lo, max(cycle) AS hi FROM events GROUP BY trace ORDER BY trace
--
SELECT trace, unit, count(*) AS n FROM events GROUP BY trace, unit ORDER BY trace, unit
--
SELECT trace, count(*) AS n, sum(pc % 1000) AS pcs FROM fetch_ WHERE taken GROUP BY trace ORDER BY trace
--
SELECT trace, unit, count(*) AS n, sum(dst) AS d FROM decode WHERE cycle BETWEEN 5000 AND 9000 GROUP BY trace, unit ORDER BY trace, unit
--
SELECT count(*) AS n, sum(cycle) AS s FROM events WHERE trace = 'rank3'
--
SELECT trace, unit_id, unit, type, events FROM units ORDER BY trace, unit_id
--
SELECT trace, count(*) AS n, sum(events) AS e, min(min_cycle) AS lo, max(max_cycle) AS hi, sum(compressed_size) AS bytes FROM blocks GROUP BY trace ORDER BY trace
--
SELECT trace, count(*) AS n FROM formats GROUP BY trace ORDER BY trace
--
SELECT trace, key, value FROM metadata ORDER BY trace, key
SQL
awk -v RS='\n--\n' -v dir="$out" '{ f = dir "/ds.q" NR; printf "%s", $0 > f; close(f) } END { print NR > (dir "/ds.count") }' "$out/ds.sql"
: >"$out/ds.ours"
: >"$out/ds.sqldir"
for i in $(seq 1 "$(cat "$out/ds.count")"); do
	bin/trace_reader sql --csv "$out"/ranks/rank*.ctrace -c "$(cat "$out/ds.q$i")" >>"$out/ds.ours"
	echo -- >>"$out/ds.ours"
	bin/trace_reader sql --csv "$out/ds" -c "$(cat "$out/ds.q$i")" >>"$out/ds.sqldir"
	echo -- >>"$out/ds.sqldir"
done
node "$npmdir/parquet_dataset_check.mjs" duckdb "$out/ds" "$out/ds.sql" >"$out/ds.duckdb"
node "$polarsdir/parquet_dataset_check.mjs" polars "$out/ds" "$out/ds.sql" >"$out/ds.polars"
for reader in sqldir duckdb polars; do
	if diff -u "$out/ds.ours" "$out/ds.$reader" >"$out/ds.$reader.diff"; then
		echo "parquet-check: dataset of 8 ranks: $(grep -c '^--$' "$out/ds.ours") queries agree (trace_reader sql on the 8 traces, $reader on the dataset)"
	else
		echo "parquet-check: dataset of 8 ranks: trace_reader sql on the traces and $reader on the dataset DIFFER:" >&2
		cat "$out/ds.$reader.diff" >&2
		fail=1
	fi
done
exit $fail
