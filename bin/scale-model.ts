#!/usr/bin/env node
/**
 * `npm run scale-model`: docs/scale.md from a bench JSON (`npm run bench -- --json FILE`) and
 * tools/scale-model/assumptions.ts. `--check` writes nothing and exits 1 when the page on disk
 * differs from what it would write. Exit code 2 when the bench file is missing or malformed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { Command, CommanderError } from 'commander';
import { BENCH_RUN, BenchInputError, buildScaleModel, readBenchRun, renderScaleDoc, SCALE_DOC } from '../tools/scale-model';

interface ScaleModelFlags {
  readonly bench: string;
  readonly out: string;
  readonly check?: boolean;
}

const program = new Command('scale-model')
  .description(`Compute ${SCALE_DOC} (events per second per hot key, table, queue and shard; Lambda concurrency; dollars per million events) from a bench run`)
  .option('--bench <file>', 'the bench JSON to read', BENCH_RUN)
  .option('--out <file>', 'the page to write', SCALE_DOC)
  .option('--check', 'write nothing; exit 1 when the page differs from what would be written')
  .action((flags: ScaleModelFlags) => {
    process.exitCode = scaleModel(flags);
  })
  .exitOverride();

function scaleModel(flags: ScaleModelFlags): number {
  const page = renderScaleDoc(buildScaleModel(readBenchRun(flags.bench)), flags.bench);
  const current = existsSync(flags.out) ? readFileSync(flags.out, 'utf8') : undefined;
  if (flags.check) return check(flags, current === page);
  if (current === page) {
    process.stdout.write(`${flags.out} is current\n`);
    return 0;
  }
  mkdirSync(path.dirname(path.resolve(flags.out)), { recursive: true });
  writeFileSync(flags.out, page);
  process.stdout.write(`wrote ${flags.out} from ${flags.bench}\n`);
  return 0;
}

function check(flags: ScaleModelFlags, current: boolean): number {
  if (current) {
    process.stdout.write(`${flags.out} is current\n`);
    return 0;
  }
  const command = flags.bench === BENCH_RUN && flags.out === SCALE_DOC ? 'npm run scale-model' : `npm run scale-model -- --bench ${flags.bench} --out ${flags.out}`;
  process.stderr.write(`${flags.out} is stale: run \`${command}\` and commit the result\n`);
  return 1;
}

try {
  program.parse();
} catch (error) {
  // A bad bench file, or one the model cannot use (a RangeError naming what is missing).
  if (error instanceof BenchInputError || error instanceof RangeError) process.stderr.write(`scale-model: ${error.message}\n`);
  else if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error instanceof CommanderError && error.exitCode === 0 ? 0 : 2;
}
