/**
 * Kinesis's record rules for PutRecord and PutRecords (API Reference: PutRecord, PutRecords):
 * a partition key of 1..256 characters; a record, data plus partition key, within the stream's
 * maximum record size (1 MiB unless the stream says otherwise); 1..500 records and at most
 * 5 MiB of data and keys in one PutRecords. kinesalite enforces the key length, the 1 MiB of
 * data and the record count itself, with AWS's messages; it misses a key that pushes a record
 * over the limit and a request over 5 MiB (up to its own 7 MiB body cap). Messages recorded from
 * AWS: the `data` constraint (awslabs/kinesis-aggregation#30), "Records size exceeds 5 MB limit"
 * (snowplow/enrich#685, InvalidArgumentException).
 */
import { blobBytes, fail, firstFailure, OK, utf8Bytes, type AwsError, type CheckResult } from './aws-error';
import type { KinesisFacts } from './facts';
import { KINESIS_LIMITS } from '../../aws/limits';

/** One record as the JSON protocol carries it (`Data` in base64; bytes when decoded from CBOR). */
export interface KinesisRecordInput {
  readonly Data?: string | Uint8Array;
  readonly PartitionKey?: string;
}

export const KINESIS_RULES = {
  partitionKey: 'kinesis.partition-key.length',
  recordSize: 'kinesis.record-size',
  recordCount: 'kinesis.put-records.count',
  requestSize: 'kinesis.put-records.size',
} as const;

/** PutRecord's rules. */
export function checkPutRecord(input: KinesisRecordInput, facts: KinesisFacts = {}): CheckResult {
  return checkRecord(input, 'partitionKey', 'data', facts);
}

/** PutRecords' rules: the count, each record, then the request's total. */
export function checkPutRecords(input: { readonly Records?: readonly KinesisRecordInput[] }, facts: KinesisFacts = {}): CheckResult {
  const records = input.Records ?? [];
  return firstFailure([
    () => checkCount(records.length),
    ...records.map((record, index) => () => checkRecord(record, `records.${index + 1}.member.partitionKey`, `records.${index + 1}.member.data`, facts)),
    () => checkTotal(records, facts.maxPutRecordsBytes ?? KINESIS_LIMITS.maxPutRecordsBytes),
  ]);
}

function checkRecord(record: KinesisRecordInput, keyPath: string, dataPath: string, facts: KinesisFacts): CheckResult {
  const key = record.PartitionKey ?? '';
  if (key.length < KINESIS_LIMITS.minPartitionKeyLength) return lengthError(KINESIS_RULES.partitionKey, `'${key}'`, keyPath, 'greater than or equal to', KINESIS_LIMITS.minPartitionKeyLength);
  if (key.length > KINESIS_LIMITS.maxPartitionKeyLength) return lengthError(KINESIS_RULES.partitionKey, `'${key}'`, keyPath, 'less than or equal to', KINESIS_LIMITS.maxPartitionKeyLength);
  const data = blobBytes(record.Data);
  const limit = (facts.maxRecordSizeKiB ?? KINESIS_LIMITS.defaultMaxRecordKiB) * 1024;
  // Data alone over the limit breaks the model's constraint on `data`, a ValidationException.
  const dataBound = Math.max(limit, KINESIS_LIMITS.maxDataBytes);
  if (data > dataBound) return lengthError(KINESIS_RULES.recordSize, `'java.nio.HeapByteBuffer[pos=0 lim=${data} cap=${data}]'`, dataPath, 'less than or equal to', dataBound);
  // "The record size limit applies to the total size of the partition key and data blob"; AWS's
  // wording for a record over the limit only by its key was not found.
  const size = data + utf8Bytes(key);
  return size > limit ? fail(invalidArgument(KINESIS_RULES.recordSize, `Record size ${size} bytes (data plus partition key) exceeds the stream's maximum record size of ${limit} bytes`)) : OK;
}

function checkCount(count: number): CheckResult {
  if (count < KINESIS_LIMITS.minRecords) return lengthError(KINESIS_RULES.recordCount, "'[]'", 'records', 'greater than or equal to', KINESIS_LIMITS.minRecords);
  if (count <= KINESIS_LIMITS.maxRecords) return OK;
  return lengthError(KINESIS_RULES.recordCount, `'[${count} records]'`, 'records', 'less than or equal to', KINESIS_LIMITS.maxRecords);
}

function checkTotal(records: readonly KinesisRecordInput[], limit: number): CheckResult {
  const total = records.reduce((sum, record) => sum + blobBytes(record.Data) + utf8Bytes(record.PartitionKey ?? ''), 0);
  return total <= limit ? OK : fail(invalidArgument(KINESIS_RULES.requestSize, `Records size exceeds ${Math.round(limit / 1_048_576)} MB limit`));
}

/** Kinesis's model-constraint error, as AWS (and kinesalite) word it. */
function lengthError(rule: string, value: string, path: string, relation: string, bound: number): CheckResult {
  const message = `1 validation error detected: Value ${value} at '${path}' failed to satisfy constraint: Member must have length ${relation} ${bound}`;
  return fail(kinesisError(rule, 'ValidationException', message));
}

function invalidArgument(rule: string, message: string): AwsError {
  return kinesisError(rule, 'InvalidArgumentException', message);
}

function kinesisError(rule: string, code: string, message: string): AwsError {
  return { rule, code, message, status: 400, fault: 'Sender', jsonType: code, messageKey: 'message' };
}
