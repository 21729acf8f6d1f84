/**
 * The synthesized stack behind the AWS contract layer, on the engines of this Jest run: each
 * function calls with credentials of its own, and every call it (and its event source mapping)
 * makes is decided against its role's statements in the template. A grant taken out of the
 * template fails the local run with the AccessDenied AWS would answer, naming the action and the
 * resource; so does a missing KMS grant for the encrypted topic. A poison Kinesis record of
 * control bytes reaches its DLQ with its context: SQS (here, the layer) refuses such characters in
 * attributes, and the runtime no longer sends them.
 */
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createEnvelope } from '../../../lambdas/runtime';
import { type FailureEnvelope } from '../../../aws/dlq-format';
import { peekAll } from '../../../aws/sqs/peek';
import type { SynthesizedStack } from '../../../emulator/stack/cloud-assembly';
import { output } from '../../../emulator/stack/outputs';
import { startLocalStack, type LocalStack } from '../../../emulator/stack/runtime';
import { ResourceType, resourcesOfType, type Template } from '../../../aws/cloudformation/template';
import { sharedEngines, uniqueName } from '../../helpers/engines';
import { pollUntil } from '../../helpers/poll';
import { copyAssembly, editedAssembly, stopStackAfterEach, useAssemblyCopies } from './assembly-copy';

useAssemblyCopies();


interface Statement {
  Action: string | string[];
  Effect: string;
  Resource: unknown;
}

/** Takes `action` out of every statement of the function's role (dropping statements left empty). */
function withoutAction(functionPrefix: string, action: string | RegExp) {
  return (template: Template): void => {
    const fn = resourcesOfType(template, ResourceType.FUNCTION).find((candidate) => candidate.logicalId.startsWith(functionPrefix));
    const role = (template.Resources[fn?.logicalId ?? '']?.Properties?.Role as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0];
    for (const policy of Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties?.Roles).includes(role))) {
      const document = policy.Properties?.PolicyDocument as { Statement: Statement[] };
      document.Statement = document.Statement.map((statement) => ({ ...statement, Action: [statement.Action].flat().filter((name) => !(typeof action === 'string' ? name === action : action.test(name))) })).filter((statement) => statement.Action.length > 0);
    }
  };
}

async function start(synthesized: SynthesizedStack): Promise<LocalStack> {
  return startLocalStack({ engines: sharedEngines(), synthesized, nameSuffix: `-${uniqueName('iam')}` });
}

/** The wrappers in a DLQ once there are `count`. */
async function dlqWrappers(stack: LocalStack, dlqOutput: string, count = 1): Promise<FailureEnvelope[]> {
  const url = output(stack.outputs, dlqOutput);
  return pollUntil(async () => {
    const found = (await peekAll(stack.clients.sqs, url)).map((message) => JSON.parse(message.Body ?? '{}') as FailureEnvelope);
    return found.length >= count ? found : undefined;
  }, `${count} wrappers in ${dlqOutput}`, { timeoutMs: 30_000, intervalMs: 250 });
}

function pageView(pageId: string): string {
  return JSON.stringify(createEnvelope({ type: 'page.viewed', businessKey: uniqueName(pageId), source: 'test', payload: { pageId } }));
}

describe('a grant taken out of the template', () => {
  const stoppedAfterEach = stopStackAfterEach();

  test('page-view-counter without dynamodb:PutItem: its transaction is denied as AWS denies it, naming the action and the idempotency table', async () => {
    const stack = stoppedAfterEach(await start(editedAssembly(withoutAction('PageViewCounter', 'dynamodb:PutItem'))));
    await stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: output(stack.outputs, 'PageViewsQueueUrl'), MessageBody: pageView('home') }));

    const [failure] = await dlqWrappers(stack, 'PageViewCounterDlqUrl');
    const table = output(stack.outputs, 'IdempotencyTableName');
    expect(failure?.error.name).toBe('AccessDeniedException');
    expect(failure?.error.message).toMatch(new RegExp(`is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:[^:]+:\\d+:table/${table}`));
    expect(failure?.error.kind).toBe('permanent');
    expect(stack.contract().iamDenied).toBeGreaterThanOrEqual(1);
  }, 90_000);

  test('shipment-notifier without its KMS grant: the publish to the encrypted topic is refused, naming kms:GenerateDataKey and the key', async () => {
    const stack = stoppedAfterEach(await start(editedAssembly(withoutAction('ShipmentNotifier', /^kms:/))));
    const order = createEnvelope({ type: 'order.status-changed', businessKey: uniqueName('o'), source: 'test', payload: { orderId: uniqueName('o'), status: 'SHIPPED', version: 1 } });
    await stack.clients.kinesis.send(new PutRecordCommand({ StreamName: output(stack.outputs, 'OrdersStreamName'), PartitionKey: 'o', Data: Buffer.from(JSON.stringify(order)) }));

    const [failure] = await dlqWrappers(stack, 'ShipmentNotifierDlqUrl');
    expect(failure?.consumer).toBe('shipment-notifier');
    expect(`${failure?.error.name}: ${failure?.error.message}`).toMatch(/kms:GenerateDataKey.* on resource: arn:aws:kms:[^ ]+:key\//);
    expect(stack.contract().iamDenied).toBeGreaterThanOrEqual(1);
  }, 90_000);
});

describe('the stack as synthesized', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await start(copyAssembly());
  }, 120_000);
  afterAll(async () => stack?.stop());

  test('every function\'s and mapping\'s calls pass IAM and the request rules', async () => {
    await stack.clients.sqs.send(new SendMessageCommand({ QueueUrl: output(stack.outputs, 'PageViewsQueueUrl'), MessageBody: pageView('about') }));
    await pollUntil(async () => (stack.contract().iamChecks > 10 ? true : undefined), 'the functions\' and mappings\' calls', { timeoutMs: 30_000, intervalMs: 250 });
    expect(stack.contract()).toMatchObject({ rejected: 0, iamDenied: 0 });
  }, 60_000);

  test('a poison Kinesis record of control bytes reaches its DLQ with its context', async () => {
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, byte) => byte));
    await stack.clients.kinesis.send(new PutRecordCommand({ StreamName: output(stack.outputs, 'OrdersStreamName'), PartitionKey: 'poison', Data: bytes }));

    const wrappers = await dlqWrappers(stack, 'OrderProjectionDlqUrl');
    const poison = wrappers.find((wrapper) => Buffer.from(wrapper.original.body, 'base64').equals(bytes));
    expect(poison).toMatchObject({ consumer: 'order-projection', error: { name: 'InvalidEnvelopeError', kind: 'permanent' }, source: { kind: 'kinesis' } });
    expect(poison?.error.message).toContain('\u0000');
    expect(stack.contract()).toMatchObject({ rejected: 0, iamDenied: 0 });
  }, 60_000);
});
