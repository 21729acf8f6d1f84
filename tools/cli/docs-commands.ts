/**
 * `eo docs`: regenerates docs/architecture.md from the synthesized template (`npm run docs`), or
 * with `--check` says whether the committed page is current. It works on a checkout of this
 * repository only (./checkout.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Command } from 'commander';
import { ARCHITECTURE_DOC, renderArchitecture } from '../architecture/document';
import { pipelineModel } from '../architecture/model';
import { synthesizedTemplate, synthesizeInProcess } from '../architecture/synth';
import { repositoryCheckout } from './checkout';
import type { Template } from '../../aws/cloudformation/template';

interface DocsFlags {
  readonly check?: boolean;
  readonly fromCdkOut?: boolean;
  readonly stdout?: boolean;
}

/** Adds `eo docs`. */
export function registerDocsCommands(program: Command): void {
  program
    .command('docs')
    .description(`regenerate ${ARCHITECTURE_DOC} (diagram and consumer table) from the synthesized template`)
    .option('--check', `write nothing; exit 1 when ${ARCHITECTURE_DOC} differs from what would be written`)
    .option('--from-cdk-out', 'read the template that `cdk synth` wrote to cdk.out (synthesizing when stale) instead of synthesizing in process')
    .option('--stdout', 'print the page instead of writing it')
    .action(async (flags: DocsFlags) => {
      const root = repositoryCheckout('eo docs');
      const template: Template = flags.fromCdkOut ? await synthesizedTemplate(root) : synthesizeInProcess();
      const page = renderArchitecture(template);
      if (flags.stdout) return void process.stdout.write(page);
      const target = path.join(root, ...ARCHITECTURE_DOC.split('/'));
      const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
      if (flags.check) return check(current === page);
      const { consumers, alarms } = pipelineModel(template);
      if (current === page) return void process.stdout.write(`${ARCHITECTURE_DOC} is current (${consumers.length} consumers, ${alarms.length} alarms)\n`);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, page);
      process.stdout.write(`wrote ${ARCHITECTURE_DOC} (${consumers.length} consumers, ${alarms.length} alarms)\n`);
    });
}

function check(current: boolean): void {
  if (current) {
    process.stdout.write(`${ARCHITECTURE_DOC} is current\n`);
    return;
  }
  process.stderr.write(`${ARCHITECTURE_DOC} is stale: run \`npm run docs\` and commit the result\n`);
  process.exitCode = 1;
}
