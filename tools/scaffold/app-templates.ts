/**
 * The files `eo new consumer` writes into a team's own CDK app, which imports the installed
 * package (`effectively-once`, `effectively-once/runtime`) rather than this repository's folders:
 * a one-call handler (`transactionalHandler` or `directHandler`), a construct that owns the
 * consumer's resources (./app-construct.ts), and a jest test of the handler's routes with
 * recording clients, which needs no engines. The pieces per source and pattern are in
 * ./app-handler-parts.ts and ./app-test-parts.ts.
 */
import { appOwns, renderAppConstructFile } from './app-construct';
import { appHandlerParts, CHECKS, HANDLER_KIND } from './app-handler-parts';
import { appSqlScenarios } from './app-sql-test-parts';
import { appDelivery, appScenarios } from './app-test-parts';
import { identifiersOf } from './names';
import { isStrategyRequest, PATTERN_LABEL, Source, SOURCE_LABEL, type ConsumerRequest } from './options';
import { fill, importLines, indent, wrap, type ImportSpec } from './render';

/** Where the generated files are, relative to the app's root with `/` separators, and the module paths between them. */
export interface AppFiles {
  readonly handler: string;
  readonly construct: string;
  readonly test: string;
  /** From the construct's folder to the handlers' folder, e.g. `../handlers`. */
  readonly constructToHandlers: string;
  /** From the test's folder to the handler, without extension, e.g. `../handlers/signup-counter`. */
  readonly testToHandler: string;
}

const HANDLER = `/**
{{header}}
 */
{{imports}}

export const CONSUMER_NAME = '{{name}}';

/** Where the events come from: the source of the construct that runs this handler. */
export const SOURCE = SourceKind.{{sourceKind}};

/** A Standard Schema from a check that says what is wrong, or nothing; any validator will do (zod, valibot, ...). */
function schema<T>(problem: (value: Record<string, any>) => string | undefined): PayloadSchema<T> {
  return {
    '~standard': {
      version: 1,
      vendor: CONSUMER_NAME,
      validate: (value) => {
        const found = typeof value === 'object' && value !== null ? problem(value as Record<string, any>) : 'must be an object';
        return found === undefined ? { value: value as T } : { issues: [{ message: found }] };
      },
    },
  };
}

{{checks}}

{{declarations}}

/** The routes, built at the first invocation from the environment the construct set. */
export function routes(env: HandlerEnv): Routes<{{result}}> {
{{routes}}
}

/** The Lambda entry point: {{fromEnv}} come from the environment. */
export const handler = {{call}}({ name: CONSUMER_NAME, source: SOURCE, routes });
`;

const TEST = `/**
{{header}}
 */
import { {{jestImports}} } from '@jest/globals';
{{imports}}

const DLQ_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/{{name}}-dlq';
const ENV = { CONSUMER_NAME, DLQ_URL, {{env}} };

interface Sent {
  readonly command: string;
  readonly input: Record<string, any>;
}

/** Clients that record every command; \`answer\` replies to each (or throws), by default with an empty success. */
function recordingClients(answer: (sent: Sent) => unknown = () => ({})): { clients: AwsClients; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, any> }) => {
      const each = { command: command.constructor.name, input: command.input };
      sent.push(each);
      return answer(each);
    },
    // What Powertools checks in a client before it uses it.
    config: {},
    middlewareStack: { identify: () => [], addRelativeTo: () => undefined },
  };
  return { clients: { dynamodb: client, sqs: client, sns: client, kinesis: client } as unknown as AwsClients, sent };
}

/** The handler as the construct configures it, on recording clients. */
function handlerOn(clients: AwsClients) {
  return {{call}}({ name: CONSUMER_NAME, source: SOURCE, routes, env: ENV, clients{{handlerOptions}} });
}

/** The failure context of each message sent to the DLQ. */
function deadLettered(sent: readonly Sent[]): Record<string, any>[] {
  return sent.filter((each) => each.command === 'SendMessageCommand' && each.input.QueueUrl === DLQ_URL).map((each) => JSON.parse(each.input.MessageBody));
}

{{delivery}}

{{helpers}}

describe('{{name}}', () => {
  test('{{duplicateTitle}}', async () => {
{{duplicateSetup}}
    const { clients, sent } = recordingClients({{answer}});
    const batch = {{duplicateBatch}};
    expect((await handlerOn(clients)(batch)).batchItemFailures).toEqual([]);
{{duplicateExpect}}
  });

  test('a poison record goes to the DLQ with its failure context while the rest are applied', async () => {
{{poisonSetup}}
    const { clients, sent } = recordingClients({{answer}});
    expect((await handlerOn(clients)({{poisonBatch}})).batchItemFailures).toEqual([]);
{{poisonExpect}}
    const [dead, ...more] = deadLettered(sent);
    expect(more).toEqual([]);
    expect(dead).toMatchObject({ format: 'effectively-once/failure', consumer: CONSUMER_NAME, reason: 'permanent', error: { name: '{{poisonError}}', kind: 'permanent' }, source: { kind: SOURCE } });
{{original}}
  });
});
`;

function header(request: ConsumerRequest, summary: string, command: boolean): string {
  const { title, doc } = PATTERN_LABEL[request.pattern];
  const what = `${request.name} (${SOURCE_LABEL[request.source]}, ${title}): ${summary}`;
  const placeholders =
    request.source === Source.DYNAMODB_STREAM
      ? "The source item's schema is a placeholder: replace it with your table's attributes."
      : 'The event type and payload are placeholders: replace them with what your producer sends.';
  const how = command
    ? `Generated by \`eo new consumer ${request.name} --source ${request.source} --pattern ${request.pattern}\`; edit it like your own code. ` +
      `${placeholders} The pattern: node_modules/effectively-once/${doc}.`
    : 'Generated by `eo new consumer`; edit it like any construct code. The consumer construct\'s defaults are the safe ones: tune batch size, timeout or retries in its props.';
  return `${wrap(what, 100, ' * ')}\n *\n${wrap(how, 100, ' * ')}`;
}

const RUNTIME = 'effectively-once/runtime';
const isEnvelope = (request: ConsumerRequest): boolean => request.source !== Source.DYNAMODB_STREAM;

/** What the one-call handler reads from the environment, in words. */
function fromEnv(request: ConsumerRequest): string {
  const backoff = request.source === Source.SQS ? ', visibility backoff' : '';
  const table = { counter: 'dedup table', upsert: '', external: 'idempotency table', sql: 'SQL database (the Data API\'s cluster, secret and database, the dedup table)' }[request.pattern];
  return `DLQ, attempts${backoff}${table === '' ? ' and dedup TTL' : `, dedup TTL and ${table}`}`;
}

/** `handlers/<name>.ts`: the one-call handler, its placeholder payload schema, and its routes for the test. */
export function renderAppHandler(request: ConsumerRequest): string {
  const parts = appHandlerParts(request);
  const { call, result } = HANDLER_KIND[request.pattern];
  const runtime = ['route', call, 'SourceKind', 'type HandlerEnv', 'type PayloadSchema', 'type Routes', `type ${result}`, ...parts.runtimeImports];
  const values = { name: request.name, Pascal: identifiersOf(request.name).pascal };
  return fill(HANDLER, {
    ...values,
    header: header(request, `${parts.summary}.`, true),
    imports: [...parts.otherImports, importLines(runtime.map((name): ImportSpec => [RUNTIME, name]))].join('\n'),
    sourceKind: Object.entries(Source).find(([, source]) => source === request.source)?.[0] ?? '',
    checks: parts.checks.map((check) => CHECKS[check]).join('\n'),
    declarations: fill(parts.declarations, values),
    result,
    routes: parts.routes,
    fromEnv: fromEnv(request),
    call,
  });
}

/** `<stack folder>/<name>.ts`: the construct, which the stack adds with `new <Pascal>(this, '<Pascal>', ...)`. */
export function renderAppConstruct(request: ConsumerRequest, files: AppFiles): string {
  const handler = files.handler.split('/').pop() ?? `${request.name}.ts`;
  const entry = [...files.constructToHandlers.split('/'), handler].map((part) => `'${part}'`).join(', ');
  const summary = `its ${appOwns(request).replace('function', `function (${files.handler})`)}.`;
  return renderAppConstructFile(request, header(request, summary, false), entry);
}

/** `<tests>/<name>.test.ts`: the handler's routes on recording clients, with a duplicate and a poison record. */
export function renderAppTest(request: ConsumerRequest, files: AppFiles): string {
  const delivery = appDelivery(request.source);
  const scenarios = isStrategyRequest(request) ? appScenarios(request) : appSqlScenarios(request);
  const { call } = HANDLER_KIND[request.pattern];
  const summary =
    `the handler on recording clients: ${scenarios.duplicate.title}, and a poison record goes to the DLQ with its failure context. ` +
    'Local mode (`npx eo local up`) runs the same handler on the engines.';
  const imports: ImportSpec[] = [
    ...delivery.lambdaTypes.map((name): ImportSpec => ['aws-lambda', `type ${name}`]),
    [RUNTIME, call],
    [RUNTIME, 'type AwsClients'],
    ...(scenarios.runtimeImports ?? []).map((name): ImportSpec => [RUNTIME, name]),
    ...(isEnvelope(request) ? ([[RUNTIME, 'createEnvelope']] as ImportSpec[]) : []),
    ...['CONSUMER_NAME', 'SOURCE', 'routes', ...(isEnvelope(request) ? ['EVENT_TYPE'] : [])].map((name): ImportSpec => [files.testToHandler, name]),
  ];
  const code = (text: string): string => indent(text, 4);
  return fill(TEST, {
    name: request.name,
    header: header(request, summary, true),
    imports: [...scenarios.imports, importLines(imports)].join('\n'),
    env: fill(scenarios.env, { name: request.name }),
    call,
    jestImports: [...(scenarios.handlerOptions ? ['beforeEach'] : []), 'describe', 'expect', 'test'].join(', '),
    handlerOptions: scenarios.handlerOptions ? `, ${scenarios.handlerOptions}` : '',
    delivery: fill(delivery.builders, { name: request.name }),
    helpers: scenarios.helpers,
    answer: scenarios.answer,
    duplicateTitle: scenarios.duplicate.title,
    duplicateSetup: code(scenarios.duplicate.setup),
    duplicateBatch: scenarios.duplicate.batch,
    duplicateExpect: code(scenarios.duplicate.expect),
    poisonSetup: code(scenarios.poison.setup),
    poisonBatch: scenarios.poison.batch,
    poisonExpect: code(scenarios.poison.expect),
    poisonError: scenarios.poison.error,
    original: code(delivery.original),
  });
}

export { appConstructIds, usesIdempotencyTable } from './app-construct';
