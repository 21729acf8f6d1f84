/**
 * GetQueueAttributes names only attributes SQS has: `AttributeNames` from the SQS model's
 * `QueueAttributeName` (in @aws-sdk/client-sqs), else `InvalidAttributeName` with SQS's message
 * `Unknown Attribute <name>.` (as AWS returns it, e.g. aws/aws-sdk-ruby#1632). fauxqs answers any
 * name it knows and drops the rest, so a name only fauxqs knows (local mode's oldest-message
 * attribute) would pass it unrefused.
 */
import { QueueAttributeName } from '@aws-sdk/client-sqs';
import { fail, OK, type CheckResult } from './aws-error';
import { sqsError } from './sqs-errors';

export const SQS_QUEUE_ATTRIBUTE_RULES = {
  attributeName: 'sqs.get-queue-attributes.attribute-name',
} as const;

const KNOWN: ReadonlySet<string> = new Set(Object.values(QueueAttributeName));

/** The parameter of GetQueueAttributes that names attributes. */
export interface SqsGetQueueAttributesInput {
  readonly AttributeNames?: readonly unknown[];
}

/** The first name SQS does not know, refused. */
export function checkQueueAttributeNames(input: SqsGetQueueAttributesInput): CheckResult {
  const unknown = (input.AttributeNames ?? []).find((name) => typeof name !== 'string' || !KNOWN.has(name));
  if (unknown === undefined) return OK;
  return fail(sqsError(SQS_QUEUE_ATTRIBUTE_RULES.attributeName, 'InvalidAttributeName', `Unknown Attribute ${String(unknown)}.`));
}
