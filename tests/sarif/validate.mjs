// Validates SARIF logs with the two real validators and fails on anything
// either reports:
//   - the OASIS SARIF 2.1.0 JSON schema (draft-04), with ajv;
//   - Microsoft's SARIF multitool `validate`, with its SARIF and GitHub
//     ingestion rules. The multitool exits 0 even when it reports problems,
//     so its output is read: any error or warning fails the log.
//
// usage: node validate.mjs <schema.json> <log.sarif>...
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);
const [schemaPath, ...logs] = process.argv.slice(2);
if (!schemaPath || logs.length === 0) {
  console.error('usage: node validate.mjs <schema.json> <log.sarif>...');
  process.exit(2);
}

const ajv = new Ajv04({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(JSON.parse(fs.readFileSync(schemaPath, 'utf8')));

// The platform package holds a self-contained binary; npm may have unpacked
// it without its executable bit when install scripts are disabled.
const multitool = require('@microsoft/sarif-multitool');
fs.chmodSync(multitool, 0o755);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sarif-validate-'));

// One multitool run for every log: its start-up dominates.
const run = spawnSync(
  multitool,
  ['validate', '--rule-kind', 'Sarif;Gh', '--output',
   path.join(scratch, 'validation.sarif'), ...logs],
  { encoding: 'utf8' });
const reported = new Map(logs.map((log) => [log, []]));
if (run.status !== 0)
  for (const log of logs)
    reported.get(log).push(`multitool exited with ${run.status}: ${run.stderr}${run.stdout}`);
for (const line of (run.stdout || '').split('\n')) {
  if (!/: (error|warning) [A-Z]+[0-9]+/.test(line))
    continue;
  const log = logs.find((candidate) => line.startsWith(path.resolve(candidate)));
  for (const target of log ? [log] : logs)
    reported.get(target).push(`multitool: ${line.trim()}`);
}

let failed = 0;
for (const log of logs) {
  const problems = [...reported.get(log)];
  let parsed;
  try {
    parsed = JSON.parse(fs.readFileSync(log, 'utf8'));
  } catch (error) {
    problems.push(`not JSON: ${error.message}`);
  }
  if (parsed !== undefined && !validate(parsed))
    for (const error of validate.errors)
      problems.push(`schema: ${error.instancePath || '/'} ${error.message}`);

  if (problems.length) {
    failed++;
    console.log(`FAIL ${log}`);
    for (const problem of problems) console.log(`  ${problem}`);
  } else {
    console.log(`ok   ${log}`);
  }
}
fs.rmSync(scratch, { recursive: true, force: true });
console.log(`sarif: ${logs.length - failed} valid, ${failed} invalid`);
process.exit(failed ? 1 : 0);
