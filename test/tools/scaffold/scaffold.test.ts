import { addToRegistry, MARKERS, nameProblems, registryProblems } from '../../../tools/scaffold';
import { constructIdsOf, renderConstruct } from '../../../tools/scaffold/construct-template';
import { renderHandler } from '../../../tools/scaffold/handler-template';
import { identifiersOf } from '../../../tools/scaffold/names';
import { PATTERNS, SOURCES, type ConsumerRequest } from '../../../tools/scaffold/options';
import { sortImports, wrap } from '../../../tools/scaffold/render';
import { sqlNameProblems, sqlSchemaOf } from '../../../tools/scaffold/sql-parts';
import { renderTest } from '../../../tools/scaffold/test-template';

describe('consumer names', () => {
  test.each(['audit-trail', 'ab', 'order-v2-history', 'a1'])('accepts %s', (name) => {
    expect(nameProblems(name)).toEqual([]);
  });

  test.each([
    ['a', /not a valid consumer name: use 2 to 63 lowercase letters/],
    ['Audit', /not a valid consumer name.*did you mean audit\?/],
    ['AuditTrail', /did you mean audit-trail\?/],
    ['audit_trail', /did you mean audit-trail\?/],
    ['1audit', /not a valid consumer name/],
    [`a${'b'.repeat(63)}`, /not a valid consumer name/],
    ['audit-', /not a valid consumer name.*did you mean audit\?/],
    ['audit--trail', /did you mean audit-trail\?/],
    ['delete', /reserved word/],
    ['index', /reserved word/],
    ['con', /reserved word/],
  ])('refuses %s', (name, problem) => {
    expect(nameProblems(name)).toEqual([expect.stringMatching(problem)]);
  });

  test('become PascalCase construct ids', () => {
    expect(identifiersOf('order-v2-history').pascal).toBe('OrderV2History');
  });
});

describe('the registry', () => {
  const registry = ['// eo:generated-imports:start', '// eo:generated-imports:end', 'export const X = [', '  // eo:generated-consumers:start', '  // eo:generated-consumers:end', '];', ''].join('\n');

  test('gets an import and an entry above the end markers, indented like them', () => {
    const once = addToRegistry(registry, 'audit-trail');
    const twice = addToRegistry(once, 'order-history');
    expect(twice.split('\n')).toEqual([
      '// eo:generated-imports:start',
      "import { addAuditTrail } from './audit-trail';",
      "import { addOrderHistory } from './order-history';",
      '// eo:generated-imports:end',
      'export const X = [',
      '  // eo:generated-consumers:start',
      '  addAuditTrail,',
      '  addOrderHistory,',
      '  // eo:generated-consumers:end',
      '];',
      '',
    ]);
  });

  test.each(Object.values(MARKERS))('refuses a registry without %s, or with it twice', (marker) => {
    const without = registry.split('\n').filter((line) => line.trim() !== marker).join('\n');
    expect(registryProblems(without)).toEqual([expect.stringContaining(`${marker}\` exactly once (found 0)`)]);
    expect(registryProblems(`${registry}${marker}\n`)).toEqual([expect.stringContaining('(found 2)')]);
    expect(() => addToRegistry(without, 'audit-trail')).toThrow(marker);
  });
});

describe('rendering', () => {
  const requests: ConsumerRequest[] = SOURCES.flatMap((source) => PATTERNS.map((pattern) => ({ name: 'audit-trail', source, pattern })));

  test.each(requests)('$source + $pattern leaves no placeholder and no line over 200 characters', (request) => {
    for (const text of [renderHandler(request), renderConstruct(request), renderTest(request)]) {
      expect(text).not.toMatch(/\{\{\w+\}\}/);
      expect(text.split('\n').filter((line) => line.length > 200)).toEqual([]);
      expect(text.endsWith('\n')).toBe(true);
    }
  });

  test.each(requests)('$source + $pattern: the handler exports its factory and entry point for its source', (request) => {
    const handler = renderHandler(request);
    expect(handler).toContain(request.pattern === 'sql' ? 'export function createAuditTrail(options: ' : 'export function createAuditTrail(config: AuditTrailConfig): BatchHandler');
    expect(handler).toContain('export const handler: BatchHandler');
    expect(handler).toContain({ sqs: 'SourceKind.SQS', kinesis: 'SourceKind.KINESIS', 'dynamodb-stream': 'SourceKind.DYNAMODB_STREAM' }[request.source]);
    expect(handler).toContain({ counter: 'transactionalStrategy({', upsert: 'putIfNewer(dynamodb', external: 'idempotentEffect(', sql: 'sqlHandler({' }[request.pattern]);
  });

  test.each(requests.filter((request) => request.pattern === 'external'))('$source + external: the effect is handed the Lambda context, so that its lock expires with the invocation', (request) => {
    expect(renderHandler(request)).toMatch(/await publish\(\{[^\n]*\}, context\.lambdaContext\);/);
  });

  test.each(requests)('$source + $pattern: the handler validates with zod/mini and its English messages, not full zod', (request) => {
    const handler = renderHandler(request);
    expect(handler).toContain("import * as z from 'zod/mini';");
    expect(handler).toContain("import { en } from 'zod/locales';");
    expect(handler).toContain('\nz.config(en());\n');
    expect(handler).not.toMatch(/from 'zod';/);
    // The chained methods of full zod, which zod/mini schemas do not have.
    expect(handler).not.toMatch(/(?<!\bz)\.(min|max|int|optional|refine)\(/);
  });

  test.each(requests.filter((request) => request.pattern === 'sql'))('$source + sql: one sqlHandler call, parameterized effects, and the tables added to the stack\'s database', (request) => {
    const handler = renderHandler(request);
    expect(handler).toMatch(/return sqlHandler\(\{ \.\.\.options, name: CONSUMER_NAME, source: SourceKind\.\w+, routes \}\);/);
    // Structured effects, which the strategy may batch where the catalog proves the order cannot show; no SQL text of its own.
    expect(handler).toMatch(/sqlInsert\(tables\.entries, \{ event_id: eventId, key: [^,]+, amount: [\w.]+ \}\)/);
    expect(handler).not.toContain('sql`INSERT');
    expect(handler).toMatch(/sqlIncrement\(tables\.totals, \{ key: [\w.]+ \}, 'total', [\w.]+\)/);
    expect(handler).toContain("env.require('ENTRIES_TABLE')");
    const construct = renderConstruct(request);
    expect(construct).toContain("pipeline.sqlDatabase.addSchema('AuditTrail', AUDIT_TRAIL_SCHEMA);");
    expect(construct).toContain('pipeline.sqlDatabase.connect(consumer.function);');
    expect(construct).toContain('environment: { ENTRIES_TABLE: AUDIT_TRAIL_TABLES.entries, TOTALS_TABLE: AUDIT_TRAIL_TABLES.totals },');
    expect(renderTest(request)).toContain('startDataApiGateway({ postgres: postgres.connection })');
  });

  test('the SQL pattern\'s DDL is safe to run again, and a name whose tables would pass 63 characters is refused', () => {
    expect(sqlSchemaOf('audit-trail')).toEqual([
      'CREATE TABLE IF NOT EXISTS audit_trail_entries (event_id text PRIMARY KEY, key text NOT NULL, amount bigint NOT NULL)',
      'CREATE TABLE IF NOT EXISTS audit_trail_totals (key text PRIMARY KEY, total bigint NOT NULL)',
    ]);
    const longest = `a${'b'.repeat(54)}`;
    expect(sqlNameProblems({ name: longest, source: 'sqs', pattern: 'sql' })).toEqual([]);
    expect(sqlNameProblems({ name: `${longest}c`, source: 'sqs', pattern: 'sql' })).toEqual([expect.stringMatching(/too long for --pattern sql: its table a?b+c_entries would be over PostgreSQL's 63 characters; use at most 55/)]);
    expect(sqlNameProblems({ name: `${longest}c`, source: 'sqs', pattern: 'counter' })).toEqual([]);
  });

  test('the construct ids it claims are the ids the construct file uses', () => {
    for (const request of requests) {
      const construct = renderConstruct(request);
      for (const id of constructIdsOf(request).filter((id) => !id.endsWith('TopicKey'))) expect(construct).toContain(id);
    }
  });

  test('imports sort as the handlers sort them; prose wraps at the width', () => {
    expect(sortImports(['type B', 'route', 'DlqSender', 'type a', 'createConsumer'])).toEqual(['createConsumer', 'DlqSender', 'route', 'type a', 'type B']);
    expect(wrap('one two three four', 11, ' * ')).toBe(' * one two\n * three\n * four');
  });
});
