/**
 * Local mode makes the SQL database's own calls as AWS makes them, under their roles (issue 39,
 * item 5): the migration's `Custom::AWS` statements as its provider function's role, and the
 * expiry schedule's `ExecuteStatement` as its target's role, each decided by the contract layer's
 * IAM. The Data API reads the cluster's secret as the caller, so a role without
 * `secretsmanager:GetSecretValue` on it is refused, locally as on AWS: here the template's grant is
 * taken out, and the migration fails the start, or every run of the schedule is dead-lettered with
 * the denial. (Before, both signed as the local administrator, which IAM does not decide, and the
 * schedule's role had no such grant at all.)
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import type { Template } from '../../../aws/cloudformation/template';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { synthesizeSqlStack } from './sql-stack';

let synthesized: ReturnType<typeof synthesizeSqlStack>;
beforeAll(() => {
  synthesized = synthesizeSqlStack();
}, 300_000);
afterAll(() => synthesized?.remove());

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The logical id in `{ "Fn::GetAtt": [id, "Arn"] }`. */
function getAttTarget(value: unknown): string {
  const [id] = ((value as { 'Fn::GetAtt'?: unknown[] } | undefined)?.['Fn::GetAtt'] ?? []) as string[];
  if (id === undefined) throw new Error(`not a GetAtt: ${JSON.stringify(value)}`);
  return id;
}

/** A copy of the template whose policies attached to `role` grant nothing of Secrets Manager. */
function withoutSecretGrant(template: Template, role: string): Template {
  const copy = structuredClone(template) as Template & { Resources: Resources };
  let removed = 0;
  for (const resource of Object.values(copy.Resources)) {
    if (resource.Type !== 'AWS::IAM::Policy' || !JSON.stringify(resource.Properties?.Roles).includes(`"${role}"`)) continue;
    const document = resource.Properties?.PolicyDocument as { Statement: { Action: string | string[] }[] };
    const kept = document.Statement.filter((statement) => ![statement.Action].flat().some((action) => action.startsWith('secretsmanager:')));
    removed += document.Statement.length - kept.length;
    document.Statement = kept;
  }
  if (removed === 0) throw new Error(`no Secrets Manager grant of ${role} to take out`);
  return copy;
}

function resourcesOf(template: Template): Resources {
  return (template as Template & { Resources: Resources }).Resources;
}

/** The role the expiry schedule's target runs as. */
function scheduleRole(template: Template): string {
  const schedule = Object.values(resourcesOf(template)).find((resource) => resource.Type === 'AWS::Scheduler::Schedule');
  return getAttTarget((schedule?.Properties?.Target as { RoleArn?: unknown } | undefined)?.RoleArn);
}

/** The role of the provider function that makes the migration's calls. */
function migrationRole(template: Template): string {
  const resources = resourcesOf(template);
  const call = Object.values(resources).find((resource) => resource.Type === 'Custom::AWS');
  const provider = resources[getAttTarget(call?.Properties?.ServiceToken)];
  return getAttTarget(provider?.Properties?.Role);
}

test('the migration runs as its provider function\'s role: without the secret grant, the start fails on the denial', async () => {
  const template = withoutSecretGrant(synthesized.template, migrationRole(synthesized.template));
  await expect(startLocalStack({ engines: sharedEngines(), synthesized: { ...synthesized, template }, nameSuffix: `-${uniqueName('mig')}` })).rejects.toThrow(/the migration EffectsMigration0\w* failed on the local Data API: .*secretsmanager:GetSecretValue/);
}, 300_000);

describe('the expiry schedule runs as its target\'s role', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    const template = withoutSecretGrant(synthesized.template, scheduleRole(synthesized.template));
    stack = await startLocalStack({ engines: sharedEngines(), synthesized: { ...synthesized, template }, nameSuffix: `-${uniqueName('exp')}` });
  }, 300_000);
  afterAll(() => stack?.stop());

  test('without the secret grant, its runs are denied and dead-lettered with the denial', async () => {
    const dlq = [...stack.resources.queues.values()].find((queue) => queue.logicalId.startsWith('EffectsDlq'));
    if (!dlq) throw new Error('no expiry DLQ');
    const message = await pollUntil(async () => (await stack.clients.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.url, MessageAttributeNames: ['All'], WaitTimeSeconds: 1 }))).Messages?.[0], 'a message in the expiry DLQ', { timeoutMs: 60_000, intervalMs: 250 });
    expect(message.MessageAttributes?.ERROR_CODE?.StringValue).toBe('AccessDeniedException');
    expect(message.MessageAttributes?.ERROR_MESSAGE?.StringValue).toContain('secretsmanager:GetSecretValue');
  }, 90_000);
});
