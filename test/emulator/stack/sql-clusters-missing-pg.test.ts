/**
 * A stack with a Data API cluster, in an app installed without the optional peers that local mode
 * runs it on: the start names both packages and the command that installs them, instead of
 * "Cannot find module 'pg'". (pg is made missing here with a module mock; nothing is started.)
 */
import { POSTGRES_PACKAGES, startSqlDatabase } from '../../../emulator/stack/sql-clusters';

jest.mock('pg', () => {
  throw Object.assign(new Error("Cannot find module 'pg' from 'emulator/engines/postgres-session.ts'"), { code: 'MODULE_NOT_FOUND' });
});

test('a stack with a cluster and no pg installed is told what to install', async () => {
  const template = { Resources: { Db: { Type: 'AWS::RDS::DBCluster', Properties: { Engine: 'aurora-postgresql', EnableHttpEndpoint: true, DatabaseName: 'ledger' } } } };
  await expect(startSqlDatabase(template, 'Stack', undefined)).rejects.toThrow(
    `the stack has an Aurora PostgreSQL cluster with the Data API on (SqlEffectDatabase), which local mode runs on a real PostgreSQL: install its optional peer dependencies in your app with \`npm install --save-dev ${POSTGRES_PACKAGES.join(' ')}\` (Cannot find module 'pg'`,
  );
});

test('a stack without a cluster needs neither', async () => {
  await expect(startSqlDatabase({ Resources: {} }, 'Stack', undefined)).resolves.toBeUndefined();
});
