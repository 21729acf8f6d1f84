/**
 * A hand-built `ProvisionedStack` of stack `S` for tests that resolve a template against one
 * without engines: queues `S-<logicalId>` (each resolvable by `Ref` and `Fn::GetAtt`), and any
 * other logical ids with the `Ref` given (functions, mappings).
 */
import type { LocalResource } from '../../aws/cloudformation/intrinsics';
import type { LocalQueue, ProvisionedStack } from '../../emulator/stack/provision';

/** Queue `S-<logicalId>` with a 30 s visibility timeout (1 s locally). */
export function testQueue(logicalId: string): LocalQueue {
  return { logicalId, name: `S-${logicalId}`, url: `http://q/S-${logicalId}`, arn: `arn:aws:sqs:us-east-1:000000000000:S-${logicalId}`, visibilityTimeoutSeconds: 30, localVisibilityTimeoutSeconds: 1 };
}

/** Stack `S` with these queues (by logical id) and other resources. */
export function provisionedStack(queueIds: readonly string[], others: ReadonlyMap<string, LocalResource> = new Map()): ProvisionedStack {
  const queues = new Map(queueIds.map((logicalId) => [logicalId, testQueue(logicalId)]));
  const queueResources = [...queues.values()].map((q): [string, LocalResource] => [q.logicalId, { ref: q.url, attributes: { QueueName: q.name, Arn: q.arn } }]);
  return { stackName: 'S', queues, tables: new Map(), streams: new Map(), topics: new Map(), buckets: new Map(), clusters: new Map(), context: { resources: new Map([...queueResources, ...others]), pseudo: {} } };
}
