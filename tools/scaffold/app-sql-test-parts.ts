/**
 * The SQL pattern's scenarios in a team's test (`--pattern sql`): the handler's session is a fake
 * of the database, so that the test runs with jest alone; it keeps the dedup table's unique key and
 * records what each committed transaction ran. `app-templates.ts` puts them into the file, as it
 * does the other patterns' (./app-test-parts.ts).
 */
import { AGAIN, BODIES, ENVELOPE_POISON, type AppScenarios } from './app-test-parts';
import { Source, type ConsumerRequest } from './options';

/** The scenarios of a SQL consumer's test, for its kind of source. */
export function appSqlScenarios(request: ConsumerRequest): AppScenarios {
  return request.source === Source.DYNAMODB_STREAM ? streamSql() : envelopeSql();
}

/**
 * The SQL pattern's database in a team's test: a fake, not PostgreSQL, so that the test runs with
 * jest alone. It keeps the one rule the pattern rests on, the dedup table's unique key, and records
 * what each committed transaction ran.
 */
const FAKE_DATABASE = `/** A parameter's value as the handler sent it (\`stringValue\`, \`longValue\`, ...). */
function valueOf(parameter: SqlParameter): unknown {
  return Object.values(parameter.value)[0];
}

/**
 * A FAKE of the SQL database, not PostgreSQL: this test runs with jest alone, and \`npx eo local up\`
 * runs the handler on a real PostgreSQL behind the local Data API. The fake keeps the one rule the
 * pattern rests on, the dedup table's unique key (an insert of a dedup key it holds returns no row,
 * as \`ON CONFLICT DO NOTHING RETURNING\` does, so the event's effects are skipped), rolls back the
 * dedup keys of a transaction that fails, and records the statements of each one that commits.
 */
function fakeDatabase(): { session: SqlSession; committed: SqlStatement[] } {
  const dedupRows = new Map<string, unknown>();
  const committed: SqlStatement[] = [];
  const answer = (statement: SqlStatement, claimed: string[]): SqlResult => {
    const values = statement.parameters.map(valueOf);
    if (/\\(dedup_key, payload_hash, expires_at\\) VALUES/.test(statement.sql)) {
      const rows: { dedup_key: string }[] = [];
      for (let index = 0; index < values.length; index += 3) {
        const key = String(values[index]);
        if (dedupRows.has(key)) continue;
        dedupRows.set(key, values[index + 1]);
        claimed.push(key);
        rows.push({ dedup_key: key });
      }
      return { rows, updatedCount: rows.length };
    }
    const keys = values.map(String).filter((key) => dedupRows.has(key));
    if (/^SELECT dedup_key/.test(statement.sql)) return { rows: keys.map((key) => ({ dedup_key: key, payload_hash: dedupRows.get(key) })), updatedCount: 0 };
    if (/^DELETE FROM \\S+ WHERE dedup_key IN/.test(statement.sql)) keys.forEach((key) => dedupRows.delete(key));
    return { rows: [], updatedCount: 1 };
  };
  const session: SqlSession = {
    async transaction<T>(work: (transaction: SqlTransaction) => Promise<T>): Promise<T> {
      const [statements, claimed]: [SqlStatement[], string[]] = [[], []];
      try {
        const result = await work({
          execute: async (statement) => {
            statements.push(statement);
            return answer(statement, claimed);
          },
        });
        committed.push(...statements);
        return result;
      } catch (error) {
        claimed.forEach((key) => dedupRows.delete(key));
        throw error;
      }
    },
  };
  return { session, committed };
}

/** What the committed transactions applied: each entry's amount by event id, and the sum of the increments by key. */
function applied(committed: readonly SqlStatement[]): { entries: Record<string, number>; totals: Record<string, number> } {
  const entries: Record<string, number> = {};
  const totals: Record<string, number> = {};
  for (const statement of committed) {
    const [first, second, third] = statement.parameters.map(valueOf);
    if (statement.sql.startsWith(\`INSERT INTO "\${ENV.ENTRIES_TABLE}"\`)) entries[String(first)] = Number(third);
    // sqlIncrement's statement: the amount, then the key, as \`WITH updated AS (UPDATE ... SET total = stored.total + $1 WHERE key = $2 ...\`.
    if (statement.sql.startsWith(\`WITH updated AS (UPDATE "\${ENV.TOTALS_TABLE}"\`)) totals[String(second)] = (totals[String(second)] ?? 0) + Number(first);
  }
  return { entries, totals };
}

let database: ReturnType<typeof fakeDatabase>;
beforeEach(() => {
  database = fakeDatabase();
});`;

const SQL_RUNTIME_IMPORTS = ['type SqlParameter', 'type SqlResult', 'type SqlSession', 'type SqlStatement', 'type SqlTransaction'];
const SQL_ENV = "SQL_DEDUP_TABLE: 'eo_dedup', ENTRIES_TABLE: 'entries', TOTALS_TABLE: 'totals'";
const SQL_SESSION = 'session: () => database.session';
const SQL_AGAIN = `// A crash after the commit and before the acknowledgement: Lambda delivers the same batch again, and nothing changes.
${AGAIN}
// Everything went to the database: no other AWS call, nothing dead-lettered.
expect(sent).toEqual([]);`;

function envelopeSql(): AppScenarios {
  return {
    imports: [],
    runtimeImports: SQL_RUNTIME_IMPORTS,
    env: SQL_ENV,
    helpers: `/** An event as the producer publishes it: the same key and id give the same eventId. */
function entry(key: string, id: string, amount: number) {
  return createEnvelope({ type: EVENT_TYPE, businessKey: \`\${key}:\${id}\`, source: 'test', payload: { key, amount } });
}

${FAKE_DATABASE}`,
    answer: '',
    handlerOptions: SQL_SESSION,
    duplicate: {
      title: 'a producer retry in the batch, and the batch delivered again, are applied once',
      setup: "const [first, second] = [entry('home', 'view-1', 3), entry('home', 'view-2', 4)];",
      batch: `delivered(...[first, first, second]${BODIES})`,
      expect: `${SQL_AGAIN}\nexpect(applied(database.committed)).toEqual({ entries: { [first.eventId]: 3, [second.eventId]: 4 }, totals: { home: 7 } });`,
    },
    poison: {
      setup: `const valid = entry('pricing', 'view-1', 5);\n${ENVELOPE_POISON}`,
      batch: 'delivered(JSON.stringify(valid), poison)',
      expect: 'expect(applied(database.committed)).toEqual({ entries: { [valid.eventId]: 5 }, totals: { pricing: 5 } });',
      error: 'InvalidEnvelopeError',
    },
  };
}

function streamSql(): AppScenarios {
  return {
    imports: [],
    runtimeImports: SQL_RUNTIME_IMPORTS,
    env: SQL_ENV,
    helpers: FAKE_DATABASE,
    answer: '',
    handlerOptions: SQL_SESSION,
    duplicate: {
      title: 'a change delivered twice in the batch, and the batch delivered again, is counted once',
      setup: "const [first, second] = [change('INSERT', { pk: 'item-1', category: 'books' }), change('INSERT', { pk: 'item-2', category: 'books' })];\nconst removed = change('REMOVE', { pk: 'item-2', category: 'books' });",
      batch: 'delivered(first, first, second, removed)',
      expect: `${SQL_AGAIN}\nexpect(applied(database.committed)).toEqual({ entries: { [\`\${first.eventID}\`]: 1, [\`\${second.eventID}\`]: 1, [\`\${removed.eventID}\`]: -1 }, totals: { books: 1 } });`,
    },
    poison: {
      setup: "const valid = change('INSERT', { pk: 'item-3', category: 'toys' });\nconst poison = change('INSERT', { pk: 'item-4' });",
      batch: 'delivered(valid, poison)',
      expect: "expect(applied(database.committed)).toEqual({ entries: { [`${valid.eventID}`]: 1 }, totals: { toys: 1 } });",
      error: 'SchemaViolationError',
    },
  };
}
