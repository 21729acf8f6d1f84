/**
 * The object a stream mapping writes to an S3 on-failure destination: its key, and a body that is
 * the SQS destination's on-failure record plus `payload`, the whole invocation event as a JSON
 * string (Lambda Developer Guide, "Example Amazon S3 invocation record"). Read back, a body that is
 * not such an object says what is wrong with it.
 */
import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import {
  MalformedOnFailureObjectError,
  ON_FAILURE_OBJECT_PREFIX,
  onFailureObject,
  onFailureObjectKey,
  parseOnFailureObject,
} from '../../../aws/lambda/on-failure-object';
import { onFailureRecord } from '../../../aws/lambda/on-failure-record';
import { dynamoRecord, kinesisRecord, TEST_STREAM_ARN, TEST_TABLE_STREAM_ARN } from '../../helpers/events';

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:order-projection';
const MAPPING_UUID = '6b1f3c2e-8d4a-4e5f-9a0b-1c2d3e4f5a6b';
const OBJECT_ID = 'f0e1d2c3-b4a5-4967-8877-665544332211';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

describe('onFailureObjectKey', () => {
  test('is aws/lambda/<ESM-UUID>/<shardID>/YYYY/MM/DD/YYYY-MM-DDTHH.MM.SS-<uuid>, zero-padded, without milliseconds', () => {
    const at = new Date(Date.UTC(2026, 0, 5, 3, 4, 9, 123));
    expect(onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId: 'shardId-000000000001', at, id: OBJECT_ID }))
      .toBe(`aws/lambda/${MAPPING_UUID}/shardId-000000000001/2026/01/05/2026-01-05T03.04.09-${OBJECT_ID}`);
  });

  test('is in UTC: an instant that is already the next year east of Greenwich stays in the old one', () => {
    const at = new Date('2026-12-31T23:59:59.999Z');
    expect(onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId: 'shardId-000000000000', at, id: OBJECT_ID }))
      .toBe(`aws/lambda/${MAPPING_UUID}/shardId-000000000000/2026/12/31/2026-12-31T23.59.59-${OBJECT_ID}`);
  });

  test('a DynamoDB stream shard id is kept as it is', () => {
    const shardId = 'shardId-00000001764496800000-1a2b3c4d';
    const key = onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId, at: new Date('2026-11-30T10:00:00.000Z'), id: OBJECT_ID });
    expect(key.split('/')).toEqual(['aws', 'lambda', MAPPING_UUID, shardId, '2026', '11', '30', `2026-11-30T10.00.00-${OBJECT_ID}`]);
  });

  test('defaults to now and a random UUID, so two objects of the same second get two keys', () => {
    const before = Date.now();
    const first = onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId: 'shardId-000000000000' });
    const second = onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId: 'shardId-000000000000' });
    expect(first).not.toBe(second);
    const match = /^aws\/lambda\/[^/]+\/shardId-000000000000\/(\d{4})\/(\d{2})\/(\d{2})\/(\d{4}-\d{2}-\d{2})T(\d{2})\.(\d{2})\.(\d{2})-(.+)$/.exec(first);
    expect(match).not.toBeNull();
    const [, year, month, day, date, hours, minutes, seconds, id] = match as RegExpExecArray;
    expect(date).toBe(`${year}-${month}-${day}`);
    expect(id).toMatch(new RegExp(`^${UUID.source}$`));
    const stamped = Date.parse(`${date}T${hours}:${minutes}:${seconds}Z`);
    expect(stamped).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  test('starts with the prefix the operations list the bucket under', () => {
    expect(onFailureObjectKey({ mappingUuid: MAPPING_UUID, shardId: 's' }).startsWith(ON_FAILURE_OBJECT_PREFIX)).toBe(true);
    expect(ON_FAILURE_OBJECT_PREFIX).toBe('aws/lambda/');
  });
});

describe('onFailureObject', () => {
  const kinesisBatch = (): KinesisStreamRecord[] => [
    kinesisRecord({ eventId: 'e-1', n: 1 }, { partitionKey: 'o-1' }),
    kinesisRecord('not json \u00e9', { partitionKey: 'o-2' }),
  ];
  const rangeOf = (records: readonly KinesisStreamRecord[]) => records.map((record) => ({ sequenceNumber: record.kinesis.sequenceNumber, arrivalMs: record.kinesis.approximateArrivalTimestamp * 1000 }));

  test('is the SQS on-failure record with the invocation event as a JSON string', () => {
    const records = kinesisBatch();
    const input = { kind: 'kinesis', condition: 'RetryAttemptsExhausted', functionArn: FUNCTION_ARN, streamArn: TEST_STREAM_ARN, shardId: 'shardId-000000000000', records: rangeOf(records), approximateInvokeCount: 4, now: new Date('2026-11-30T10:00:05.000Z'), requestId: 'r-1' } as const;
    const object = onFailureObject({ ...input, event: { Records: records } });

    const { payload, ...record } = object;
    expect(record).toEqual(onFailureRecord(input));
    expect(typeof payload).toBe('string');
    expect(JSON.parse(payload)).toEqual({ Records: records });
  });

  test('Kinesis: round-trips through parseOnFailureObject with its range, record and records', () => {
    const records = kinesisBatch();
    const object = onFailureObject({ kind: 'kinesis', condition: 'RecordAgeExceeded', functionArn: FUNCTION_ARN, streamArn: TEST_STREAM_ARN, shardId: 'shardId-000000000000', records: rangeOf(records), approximateInvokeCount: 0, event: { Records: records } });
    const parsed = parseOnFailureObject(JSON.stringify(object));

    expect(parsed.record).toEqual(object);
    expect(parsed.record).toHaveProperty('KinesisBatchInfo');
    expect(parsed.range).toEqual({
      shardId: 'shardId-000000000000',
      startSequenceNumber: records[0]?.kinesis.sequenceNumber,
      endSequenceNumber: records[1]?.kinesis.sequenceNumber,
      approximateArrivalOfFirstRecord: '2025-11-30T10:00:00.000Z',
      approximateArrivalOfLastRecord: '2025-11-30T10:00:00.000Z',
      batchSize: 2,
      streamArn: TEST_STREAM_ARN,
    });
    expect(parsed.record.requestContext).toMatchObject({ condition: 'RecordAgeExceeded', functionArn: FUNCTION_ARN, approximateInvokeCount: 0 });
    const data = (parsed.event.Records as KinesisStreamRecord[]).map((record) => [Buffer.from(record.kinesis.data, 'base64').toString('utf8'), record.kinesis.partitionKey]);
    expect(data).toEqual([[JSON.stringify({ eventId: 'e-1', n: 1 }), 'o-1'], ['not json \u00e9', 'o-2']]);
  });

  test('DynamoDB stream: round-trips with DDBStreamBatchInfo and the records\' images', () => {
    const records: DynamoDBRecord[] = [
      dynamoRecord({ eventName: 'INSERT', newImage: { pk: 'order#o-1', status: 'PAID', version: 1 } }),
      dynamoRecord({ eventName: 'MODIFY', oldImage: { pk: 'order#o-1', status: 'PAID', version: 1 }, newImage: { pk: 'order#o-1', status: 'SHIPPED', version: 2 } }),
      dynamoRecord({ eventName: 'REMOVE', oldImage: { pk: 'order#o-2', status: 'CANCELLED', version: 3 } }),
    ];
    const range = records.map((record) => ({ sequenceNumber: record.dynamodb?.SequenceNumber ?? '', arrivalMs: (record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000 }));
    const object = onFailureObject({ kind: 'dynamodb-stream', condition: 'RetryAttemptsExhausted', functionArn: FUNCTION_ARN, streamArn: TEST_TABLE_STREAM_ARN, shardId: 'shardId-00000001764496800000-1a2b3c4d', records: range, approximateInvokeCount: 3, event: { Records: records } });
    expect(typeof object.payload).toBe('string');
    expect(object).not.toHaveProperty('KinesisBatchInfo');

    const parsed = parseOnFailureObject(JSON.stringify(object));
    expect(parsed.record).toHaveProperty('DDBStreamBatchInfo');
    expect(parsed.range).toMatchObject({
      shardId: 'shardId-00000001764496800000-1a2b3c4d',
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber,
      endSequenceNumber: records[2]?.dynamodb?.SequenceNumber,
      // DynamoDB Streams' times have whole seconds, printed without milliseconds.
      approximateArrivalOfFirstRecord: '2025-11-30T10:00:00Z',
      batchSize: 3,
      streamArn: TEST_TABLE_STREAM_ARN,
    });
    expect(parsed.event).toEqual({ Records: records });
  });
});

describe('parseOnFailureObject', () => {
  /** An object shaped as the Lambda Developer Guide's S3 invocation record example, with values of our own. */
  function documentedShape(): Record<string, unknown> {
    const event = {
      Records: [{
        kinesis: { kinesisSchemaVersion: '1.0', partitionKey: '1', sequenceNumber: '49590338271490256608559692538361571095921575989136588898', data: Buffer.from('Hello, this is a test.').toString('base64'), approximateArrivalTimestamp: 1573691884.835 },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: 'shardId-000000000001:49590338271490256608559692538361571095921575989136588898',
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: 'arn:aws:iam::123456789012:role/lambda-role',
        awsRegion: 'us-east-2',
        eventSourceARN: 'arn:aws:kinesis:us-east-2:123456789012:stream/mystream',
      }],
    };
    return {
      requestContext: { requestId: 'c9b8fa9f-5a7f-4b5e-af9c-0c604cde93a5', functionArn: 'arn:aws:lambda:us-east-2:123456789012:function:myfunction', condition: 'RetryAttemptsExhausted', approximateInvokeCount: 1 },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
      version: '1.0',
      timestamp: '2019-11-14T00:38:06.021Z',
      KinesisBatchInfo: {
        shardId: 'shardId-000000000001',
        startSequenceNumber: '49590338271490256608559692538361571095921575989136588898',
        endSequenceNumber: '49590338271490256608559692538361571095921575989136588898',
        approximateArrivalOfFirstRecord: '2019-11-14T00:38:04.835Z',
        approximateArrivalOfLastRecord: '2019-11-14T00:38:04.835Z',
        batchSize: 1,
        streamArn: 'arn:aws:kinesis:us-east-2:123456789012:stream/mystream',
      },
      payload: JSON.stringify(event),
    };
  }

  test('reads a body of the documented shape', () => {
    const body = documentedShape();
    const parsed = parseOnFailureObject(JSON.stringify(body, null, 2));
    expect(parsed.range).toEqual(body.KinesisBatchInfo);
    expect(parsed.record.requestContext.condition).toBe('RetryAttemptsExhausted');
    expect(parsed.record.timestamp).toBe('2019-11-14T00:38:06.021Z');
    expect(parsed.event.Records).toHaveLength(1);
    const [record] = parsed.event.Records as KinesisStreamRecord[];
    expect(Buffer.from(record?.kinesis.data ?? '', 'base64').toString('utf8')).toBe('Hello, this is a test.');
  });

  /** The error a body throws, checked to be a MalformedOnFailureObjectError. */
  function problemOf(body: string): MalformedOnFailureObjectError {
    let thrown: unknown;
    try {
      parseOnFailureObject(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(MalformedOnFailureObjectError);
    return thrown as MalformedOnFailureObjectError;
  }

  test('a body that is not JSON is refused as such, with the parse error as its cause', () => {
    const error = problemOf('{"requestContext": ');
    expect(error.message).toMatch(/not JSON/);
    expect(error.name).toBe('MalformedOnFailureObjectError');
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  test("the SQS destination's record, without payload, is refused as a pointer", () => {
    const pointer = Object.fromEntries(Object.entries(documentedShape()).filter(([name]) => name !== 'payload'));
    expect(problemOf(JSON.stringify(pointer)).message).toMatch(/no payload.*SQS destination's pointer/);
  });

  test('a payload that is not a string is refused like a missing one', () => {
    expect(problemOf(JSON.stringify({ ...documentedShape(), payload: { Records: [] } })).message).toMatch(/no payload/);
  });

  test('a payload that is not JSON is refused as such', () => {
    const error = problemOf(JSON.stringify({ ...documentedShape(), payload: '<Whole Event>' }));
    expect(error.message).toMatch(/payload is not JSON/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  test.each([
    ['an object without Records', JSON.stringify({ records: [] })],
    ['Records that is not an array', JSON.stringify({ Records: { 0: {} } })],
    ['JSON null', 'null'],
  ])('a payload holding %s is refused for its missing Records array', (_what, payload) => {
    expect(problemOf(JSON.stringify({ ...documentedShape(), payload })).message).toMatch(/payload has no Records array/);
  });

  test('JSON that is not an on-failure record at all is refused for its missing batch info', () => {
    expect(problemOf(JSON.stringify({ Records: [] })).message).toMatch(/not a Lambda on-failure record/);
    expect(problemOf('"just a string"').message).toMatch(/not a Lambda on-failure record/);
  });
});
