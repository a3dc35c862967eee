// Reads a dataset of many runs (export --format parquet --dataset DIR:
// DIR/<table>/trace=<label>/part-*.parquet) with DuckDB's Node.js client
// (@duckdb/node-api) or Polars' (nodejs-polars), independently of
// trace_reader, with Hive partitioning, runs each query given and prints its
// rows as CSV lines (NULL as an empty field, integers exactly), for
// parquet_check.sh to compare with `trace_reader sql --csv` on the traces.
// usage: node parquet_dataset_check.mjs duckdb|polars DIR QUERYFILE   (queries separated by lines "--")
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const [engine, dir, queryFile] = process.argv.slice(2);
const tables = readdirSync(dir).filter((t) => !t.startsWith('.') && statSync(join(dir, t)).isDirectory());
const queries = readFileSync(queryFile, 'utf8').split(/^--$/m).map((s) => s.trim()).filter(Boolean);
const field = (v) => (v === null || v === undefined ? '' : String(v));

if (engine === 'duckdb') {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  for (const table of tables) {
    const glob = join(dir, table, '*', '*.parquet').replaceAll("'", "''");
    await conn.run(`CREATE VIEW "${table.replaceAll('"', '""')}" AS SELECT * FROM read_parquet('${glob}', hive_partitioning = true)`);
  }
  for (const query of queries) {
    const reader = await conn.runAndReadAll(query);
    const out = [reader.columnNames().join(',')];
    for (const row of reader.getRows()) out.push(row.map(field).join(','));
    console.log(out.join('\n'));
    console.log('--');
  }
} else if (engine === 'polars') {
  const pl = (await import('nodejs-polars')).default;
  const ctx = pl.SQLContext();
  for (const table of tables) {
    ctx.register(table, pl.scanParquet(join(dir, table, '**', '*.parquet'), { hivePartitioning: true }));
  }
  for (const query of queries) {
    const df = ctx.execute(query, { eager: true });
    const out = [df.columns.join(',')];
    const cols = df.columns.map((c) => df.getColumn(c).toArray());
    for (let i = 0; i < df.height; i++) out.push(cols.map((c) => field(c[i])).join(','));
    console.log(out.join('\n'));
    console.log('--');
  }
} else {
  console.error(`parquet_dataset_check.mjs: engine ${engine}: want duckdb or polars`);
  process.exit(2);
}
