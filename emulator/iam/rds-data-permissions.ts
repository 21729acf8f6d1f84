/**
 * The RDS Data API's operations and what they need ("Authorizing access to the Amazon RDS Data
 * API", Aurora User Guide; "Actions, resources, and condition keys for Amazon RDS Data API",
 * Service Authorization Reference): `rds-data:<Operation>` on the cluster the request names
 * (`resourceArn`), and `secretsmanager:GetSecretValue` on its secret, which the Data API reads as
 * the caller; for a secret under a customer-managed key, `kms:Decrypt` on that key as well, which
 * Secrets Manager calls on the caller's behalf ("Secret encryption and decryption in AWS Secrets
 * Manager": the `kms:ViaService` condition names Secrets Manager). A secret named by name rather
 * than ARN is the caller's region's and account's.
 */
import { UnsupportedOperationError } from './errors';
import { requiredString, type PermissionLookups, type RequestInput } from './request-input';
import { AwsService, type Permission } from './types';

/** The operations local mode's Data API serves; `ExecuteSql` is Aurora Serverless v1's. */
const OPERATIONS: ReadonlySet<string> = new Set(['BeginTransaction', 'ExecuteStatement', 'BatchExecuteStatement', 'CommitTransaction', 'RollbackTransaction']);

/** The permissions of a Data API request; `input` is its JSON body. */
export function rdsDataPermissions(name: string, input: RequestInput, lookups: PermissionLookups): Permission[] {
  if (!OPERATIONS.has(name)) throw new UnsupportedOperationError(AwsService.RDS_DATA, name);
  const operation = { service: AwsService.RDS_DATA, name };
  const cluster = requiredString(input, 'resourceArn', operation);
  const secret = requiredString(input, 'secretArn', operation);
  const secretArn = secret.startsWith('arn:') ? secret : `arn:${lookups.partition ?? 'aws'}:secretsmanager:${lookups.region}:${lookups.accountId}:secret:${secret}`;
  const key = lookups.secretKeys?.get(secretArn);
  const context = { 'aws:ViaAWSService': 'true', 'kms:ViaService': `secretsmanager.${lookups.region}.amazonaws.com`, 'kms:CallerAccount': lookups.accountId };
  return [
    { action: `rds-data:${name}`, resource: cluster },
    { action: 'secretsmanager:GetSecretValue', resource: secretArn },
    ...(key === undefined ? [] : [{ action: 'kms:Decrypt', resource: key, context }]),
  ];
}
