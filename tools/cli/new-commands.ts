/**
 * `eo new consumer <name> --source sqs|kinesis|dynamodb-stream [--pattern counter|upsert|external|sql]`:
 * writes a consumer's handler, its construct (added to the stack) and its test, or refuses and
 * changes nothing. From a checkout of this repository (`npm run eo -- new consumer ...`) it writes
 * into the example app and its registry, as before. From the installed package (`npx eo new
 * consumer ...` in a team's CDK app) it writes into that app: its stack file, handlers folder and
 * tests folder come from `--stack`, `--handlers` and `--tests`, the `"effectively-once"` key of its
 * package.json, or the layout `cdk init` gives (../scaffold/app-layout.ts).
 */
import { type Command, Option } from 'commander';
import { appRoot, DEFAULT_PATTERN, formatReport, jsonReport, LAYOUT_KEY, newAppConsumer, newConsumer, PATTERNS, SOURCES, STACK_MARKER, type ConsumerRequest, type LayoutFlags, type Plan } from '../scaffold';
import { NotACheckoutError, repositoryCheckout } from './checkout';

interface NewConsumerFlags extends LayoutFlags {
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
  sql       rows and an increment in PostgreSQL (Aurora, through the RDS Data API), committed with the
            dedup row in one transaction; its tables go in the stack's SqlEffectDatabase, which it
            shares with the stack's other SQL consumers (docs/patterns/sql-dedup.md)

In your own CDK app (npx eo new consumer ..., from the app's folder; every source and pattern):
  the handler goes to --handlers (default: handlers/, lambda/, lambdas/, functions/ or src/handlers/),
  the construct beside the stack file --stack (default: the one file of lib/ that declares a Stack),
  the jest test to --tests (default: test/ or tests/); or set them once in package.json:
    "${LAYOUT_KEY}": { "stack": "lib/app-stack.ts", "handlers": "handlers", "tests": "test" }
  The stack gains the construct before a "${STACK_MARKER}" line in it, else at the end of its
  constructor (found with the app's TypeScript); when neither is safe, the lines are printed instead.
  A sql consumer takes the stack's SqlEffectDatabase (const x = new SqlEffectDatabase(this, ...));
  a stack without one is not edited: the lines that create it are printed, to add by hand.

Examples:
  npx eo new consumer signup-counter --source sqs                       # in your CDK app
  npx eo new consumer order-history --source kinesis --pattern upsert   # in your CDK app
  npx eo new consumer invoice-ledger --source sqs --pattern sql         # in your CDK app
  npx eo new consumer signup-counter --source sqs --stack lib/app.ts --handlers src/functions --dry-run
  npm run eo -- new consumer audit-trail --source sqs                   # in this repository
  npm run eo -- new consumer order-history --source kinesis --pattern upsert
  npm run eo -- new consumer welcome-email --source dynamodb-stream --pattern external --dry-run
  npm run eo -- new consumer payment-totals --source sqs --pattern sql   # tables in the stack's sqlDatabase`;

/** Adds `eo new consumer`. */
export function registerNewCommands(program: Command): void {
  const group = program.command('new').description('generate code that follows the project\'s patterns');
  group
    .command('consumer')
    .description('a consumer in one command: its handler, its construct in the stack (source, DLQ, alarms), and a test')
    .argument('<name>', 'kebab-case: the consumer name, the handler file name, and (PascalCase) the construct id')
    .addOption(new Option('--source <source>', 'where its events come from').choices(SOURCES).makeOptionMandatory())
    .addOption(new Option('--pattern <pattern>', 'how a redelivered event is made harmless').choices(PATTERNS).default(DEFAULT_PATTERN))
    .option('--stack <file>', 'your app: the stack file the construct is added to')
    .option('--handlers <folder>', 'your app: where the handler goes')
    .option('--tests <folder>', 'your app: where the test goes')
    .option('--dry-run', 'check the name and show what would be written; write nothing')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', EXAMPLES)
    .action((name: string, flags: NewConsumerFlags) => {
      const dryRun = flags.dryRun === true;
      const plan = generate({ name, source: flags.source, pattern: flags.pattern }, flags, dryRun);
      const out = plan.ok ? process.stdout : process.stderr;
      out.write(`${flags.json ? JSON.stringify(jsonReport(plan, { dryRun }), null, 2) : formatReport(plan, { dryRun })}\n`);
      if (!plan.ok) process.exitCode = 1;
    });
}

/** In a checkout, into its example app; from the installed package, into the app around the working directory. */
function generate(request: ConsumerRequest, flags: NewConsumerFlags, dryRun: boolean): Plan {
  const checkout = checkoutRoot();
  const layoutFlags = { stack: flags.stack, handlers: flags.handlers, tests: flags.tests };
  const given = Object.entries(layoutFlags).filter(([, value]) => value !== undefined).map(([key]) => `--${key}`);
  if (checkout !== undefined) {
    if (given.length > 0) return { ok: false, request, problems: [`${given.join(', ')} name${given.length > 1 ? '' : 's'} a place in your own CDK app; in this repository the consumer goes to example/ (run the installed \`npx eo\` in your app's folder)`] };
    return newConsumer(request, { root: checkout, dryRun });
  }
  const root = appRoot(process.cwd());
  if (root === undefined) return { ok: false, request, problems: [`no cdk.json in ${process.cwd()} or above it: run \`npx eo new consumer\` in your CDK app's folder`] };
  return newAppConsumer(request, { root, flags: layoutFlags, dryRun });
}

/** The checkout the CLI runs from; undefined for an installed package. @throws NotACheckoutError for a build of a checkout */
function checkoutRoot(): string | undefined {
  try {
    return repositoryCheckout('eo new consumer');
  } catch (error) {
    if (error instanceof NotACheckoutError && !error.built) return undefined;
    throw error;
  }
}
