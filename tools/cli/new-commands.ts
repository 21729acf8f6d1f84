/**
 * `eo new consumer <name> --source sqs|kinesis|dynamodb-stream [--pattern counter|upsert|external]`:
 * writes a consumer's handler, its construct (registered in the stack) and its test, or refuses
 * and changes nothing. It works on a checkout of this repository only (./checkout.ts).
 */
import { type Command, Option } from 'commander';
import { DEFAULT_PATTERN, formatReport, jsonReport, newConsumer, PATTERNS, SOURCES, type ConsumerRequest } from '../scaffold';
import { repositoryCheckout } from './checkout';

interface NewConsumerFlags {
  readonly source: ConsumerRequest['source'];
  readonly pattern: ConsumerRequest['pattern'];
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

const EXAMPLES = `
Patterns (docs/patterns/):
  counter   transactional dedup: the dedup record and an increment in one DynamoDB transaction
  upsert    versioned upsert: a whole-item put that an older version cannot overwrite
  external  an SNS publish wrapped in Powertools idempotency, keyed on the eventId

Examples:
  npm run eo -- new consumer audit-trail --source sqs
  npm run eo -- new consumer order-history --source kinesis --pattern upsert
  npm run eo -- new consumer welcome-email --source dynamodb-stream --pattern external --dry-run`;

/** Adds `eo new consumer`. */
export function registerNewCommands(program: Command): void {
  const group = program.command('new').description('generate code that follows the project\'s patterns');
  group
    .command('consumer')
    .description('a consumer in one command: its handler, its construct in the stack (source, DLQ, alarms), and a test on the local engines')
    .argument('<name>', 'kebab-case: the consumer name, the handler file name, and (PascalCase) the construct id')
    .addOption(new Option('--source <source>', 'where its events come from').choices(SOURCES).makeOptionMandatory())
    .addOption(new Option('--pattern <pattern>', 'how a redelivered event is made harmless').choices(PATTERNS).default(DEFAULT_PATTERN))
    .option('--dry-run', 'check the name and show what would be written; write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', EXAMPLES)
    .action((name: string, flags: NewConsumerFlags) => {
      const dryRun = flags.dryRun === true;
      const root = repositoryCheckout('eo new consumer');
      const plan = newConsumer({ name, source: flags.source, pattern: flags.pattern }, { root, dryRun });
      const out = plan.ok ? process.stdout : process.stderr;
      out.write(`${flags.json ? JSON.stringify(jsonReport(plan, { dryRun }), null, 2) : formatReport(plan, { dryRun })}\n`);
      if (!plan.ok) process.exitCode = 1;
    });
}
