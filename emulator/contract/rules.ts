/**
 * Every rule id the layer can put in `AwsError.rule` (and in the `x-eo-contract-rule` header),
 * gathered by service, so a proxy, a test or a reader can list them.
 */
import { DYNAMODB_RULES } from './dynamodb-rules';
import { KINESIS_RULES } from './kinesis-rules';
import { LAMBDA_RULES } from './lambda-invoke';
import { SNS_RULES } from './sns-publish';
import { SQS_ATTRIBUTE_RULES } from './sqs-attributes';
import { SQS_BATCH_RULES } from './sqs-batch';
import { SQS_MESSAGE_RULES } from './sqs-message';
import { SQS_FIFO_RULES } from './sqs-fifo';
import { SQS_QUEUE_ATTRIBUTE_RULES } from './sqs-queue-attributes';
import { SQS_RANGE_RULES } from './sqs-ranges';
import { SQS_VISIBILITY_BUDGET_RULES } from './sqs-visibility-budget';
import { CONFLICT_RULES } from './transaction-conflicts';

/** Rule ids by service. */
export const CONTRACT_RULES = {
  sqs: { ...SQS_MESSAGE_RULES, ...SQS_ATTRIBUTE_RULES, ...SQS_BATCH_RULES, ...SQS_RANGE_RULES, ...SQS_FIFO_RULES, ...SQS_QUEUE_ATTRIBUTE_RULES, ...SQS_VISIBILITY_BUDGET_RULES },
  sns: SNS_RULES,
  dynamodb: { ...DYNAMODB_RULES, ...CONFLICT_RULES },
  kinesis: KINESIS_RULES,
  lambda: LAMBDA_RULES,
} as const;
