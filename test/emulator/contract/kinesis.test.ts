import { checkRequest, KINESIS_LIMITS, type AwsError, type CheckResult } from '../../../emulator/contract';

const MIB = 1_048_576;
const data = (bytes: number) => Buffer.alloc(bytes).toString('base64');

function refusal(result: CheckResult): AwsError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const putRecord = (Data: string | Uint8Array, PartitionKey = 'p', facts = {}) => checkRequest('kinesis', 'PutRecord', { StreamName: 's', Data, PartitionKey }, { kinesis: facts });
const putRecords = (Records: unknown[], facts = {}) => checkRequest('kinesis', 'PutRecords', { StreamName: 's', Records }, { kinesis: facts });

describe('Kinesis partition key', () => {
  test.each([1, 256])('accepts %i characters', (length) => {
    expect(putRecord(data(1), 'k'.repeat(length)).ok).toBe(true);
  });

  test.each([
    [0, 'greater than or equal to 1'],
    [257, 'less than or equal to 256'],
  ])('refuses %i characters with ValidationException', (length, words) => {
    const error = refusal(putRecord(data(1), 'k'.repeat(length)));
    expect(error).toMatchObject({ code: 'ValidationException', jsonType: 'ValidationException', messageKey: 'message', status: 400 });
    expect(error.message).toContain(`at 'partitionKey' failed to satisfy constraint: Member must have length ${words}`);
  });
});

describe('Kinesis record size (data plus partition key)', () => {
  test('accepts 1 MiB - 1 of data with a one-character key: the record is 1 MiB', () => {
    expect(putRecord(data(MIB - 1)).ok).toBe(true);
  });

  test('refuses data over 1 MiB with the model’s ValidationException', () => {
    expect(refusal(putRecord(data(MIB + 1))).message).toBe(
      "1 validation error detected: Value 'java.nio.HeapByteBuffer[pos=0 lim=1048577 cap=1048577]' at 'data' failed to satisfy constraint: Member must have length less than or equal to 1048576",
    );
  });

  test('refuses 1 MiB of data when the key pushes the record over, with InvalidArgumentException', () => {
    expect(refusal(putRecord(data(MIB), 'pk'))).toMatchObject({ code: 'InvalidArgumentException', rule: 'kinesis.record-size' });
  });

  test('counts bytes of CBOR-decoded data as of base64 data', () => {
    expect(putRecord(new Uint8Array(MIB), 'p').ok).toBe(false);
    expect(putRecord(new Uint8Array(MIB - 1), 'p').ok).toBe(true);
  });

  test('reads a stream’s larger MaxRecordSizeInKiB', () => {
    expect(putRecord(data(2 * MIB), 'p', { maxRecordSizeKiB: 10_240 }).ok).toBe(true);
    expect(refusal(putRecord(data(10 * MIB + 1), 'p', { maxRecordSizeKiB: 10_240 })).code).toBe('ValidationException');
  });
});

describe('Kinesis PutRecords', () => {
  const records = (count: number, bytes = 1) => Array.from({ length: count }, (_, i) => ({ Data: data(bytes), PartitionKey: `k${i % 10}` }));

  test.each([1, KINESIS_LIMITS.maxRecords])('accepts %i records', (count) => {
    expect(putRecords(records(count)).ok).toBe(true);
  });

  test.each([0, KINESIS_LIMITS.maxRecords + 1])('refuses %i records', (count) => {
    expect(refusal(putRecords(records(count)))).toMatchObject({ code: 'ValidationException', rule: 'kinesis.put-records.count' });
  });

  test('names the record whose key breaks the rule', () => {
    expect(refusal(putRecords([{ Data: data(1), PartitionKey: 'k' }, { Data: data(1), PartitionKey: '' }])).message).toContain("at 'records.2.member.partitionKey'");
  });

  test('accepts 5 MiB of data and keys in all, refuses one byte more', () => {
    const fiveMiB = [...records(4, MIB - 2), { Data: data(MIB - 2 - 1), PartitionKey: 'k4' }].map((record, i) => ({ ...record, PartitionKey: `k${i}` }));
    const total = (list: typeof fiveMiB) => list.reduce((sum, r) => sum + Buffer.from(r.Data, 'base64').length + r.PartitionKey.length, 0);
    expect(total(fiveMiB)).toBe(5 * MIB - 1);
    expect(putRecords([...fiveMiB, { Data: data(0), PartitionKey: 'x' }]).ok).toBe(true);
    expect(refusal(putRecords([...fiveMiB, { Data: data(1), PartitionKey: 'x' }]))).toMatchObject({
      code: 'InvalidArgumentException',
      message: 'Records size exceeds 5 MB limit',
    });
  });

  test('takes the request limit from the facts', () => {
    const sixMiB = records(6, MIB - 3);
    expect(putRecords(sixMiB).ok).toBe(false);
    expect(putRecords(sixMiB, { maxPutRecordsBytes: 10 * MIB }).ok).toBe(true);
  });
});
