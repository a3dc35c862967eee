// Reads the Parquet export with DuckDB's Node.js client (@duckdb/node-api),
// independently of trace_reader, runs each query given and prints its rows
// as CSV lines (NULL as an empty field, integers exactly), for
// parquet_check.sh to compare with `trace_reader sql --csv` on the trace.
// usage: node parquet_check.mjs DIR QUERYFILE   (queries separated by lines "--")
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [dir, queryFile] = process.argv.slice(2);
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
for (const table of readdirSync(dir)) {
  const q = table.replaceAll('"', '""');
  await conn.run(`CREATE VIEW "${q}" AS SELECT * FROM read_parquet('${join(dir, table, '*.parquet').replaceAll("'", "''")}')`);
}
const queries = readFileSync(queryFile, 'utf8').split(/^--$/m).map((s) => s.trim()).filter(Boolean);
for (const query of queries) {
  const reader = await conn.runAndReadAll(query);
  const out = [reader.columnNames().join(',')];
  for (const row of reader.getRows()) {
    out.push(row.map((v) => (v === null ? '' : String(v))).join(','));
  }
  console.log(out.join('\n'));
  console.log('--');
}
