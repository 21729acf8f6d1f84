// kinesalite alone: which Kinesis record rules it already enforces and which only the contract
// layer does.
import { PutRecordCommand, PutRecordsCommand, type PutRecordsRequestEntry } from '@aws-sdk/client-kinesis';
import { destroyClients } from '../../../emulator/engines';
import { checkRequest } from '../../../emulator/contract';
import { createStream, engineClients, uniqueName } from '../../helpers/engines';

const clients = engineClients();
const { kinesis } = clients;
afterAll(() => destroyClients(clients));

const MIB = 1_048_576;
let streamName: string;
beforeAll(async () => {
  streamName = (await createStream(kinesis, uniqueName('contract'), 1)).streamName;
});

type Verdict = { readonly accepted: true } | { readonly accepted: false; readonly name: string; readonly status?: number };

async function verdict(promise: Promise<unknown>): Promise<Verdict> {
  try {
    await promise;
    return { accepted: true };
  } catch (error) {
    const { name, $metadata } = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { accepted: false, name, status: $metadata?.httpStatusCode };
  }
}

const base64 = (records: readonly PutRecordsRequestEntry[]) => records.map((record) => ({ ...record, Data: Buffer.from(record.Data ?? []).toString('base64') }));
const putRecord = (bytes: number, PartitionKey: string) => verdict(kinesis.send(new PutRecordCommand({ StreamName: streamName, Data: new Uint8Array(bytes), PartitionKey })));
const recordRule = (bytes: number, PartitionKey: string) => checkRequest('kinesis', 'PutRecord', { Data: Buffer.alloc(bytes).toString('base64'), PartitionKey });

describe('kinesalite accepts what Kinesis refuses; the rule refuses it', () => {
  test('a record of 1 MiB of data plus its partition key (the limit counts both)', async () => {
    expect(await putRecord(MIB, 'pk')).toEqual({ accepted: true });
    expect(recordRule(MIB, 'pk')).toMatchObject({ ok: false, error: { code: 'InvalidArgumentException' } });
  });

  test('a PutRecords of just over 5 MiB (under kinesalite’s own 7 MiB body cap)', async () => {
    const records = Array.from({ length: 6 }, (_, i) => ({ Data: new Uint8Array(Math.ceil((5 * MIB) / 6)), PartitionKey: `k${i}` }));
    expect(await verdict(kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: records })))).toEqual({ accepted: true });
    expect(checkRequest('kinesis', 'PutRecords', { Records: base64(records) })).toMatchObject({ ok: false, error: { code: 'InvalidArgumentException', message: 'Records size exceeds 5 MB limit' } });
  });
});

describe('kinesalite already refuses these, with AWS’s ValidationException', () => {
  test.each([
    ['data of 1 MiB + 1 byte', MIB + 1, 'p'],
    ['an empty partition key', 1, ''],
    ['a partition key of 257 characters', 1, 'k'.repeat(257)],
  ])('PutRecord with %s', async (_case, bytes, key) => {
    expect(await putRecord(bytes, key)).toMatchObject({ accepted: false, name: 'ValidationException', status: 400 });
    expect(recordRule(bytes, key)).toMatchObject({ ok: false, error: { code: 'ValidationException' } });
  });

  test.each([0, 501])('PutRecords of %i records', async (count) => {
    const records = Array.from({ length: count }, () => ({ Data: new Uint8Array(1), PartitionKey: 'p' }));
    expect(await verdict(kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: records })))).toMatchObject({ accepted: false, name: 'ValidationException' });
    expect(checkRequest('kinesis', 'PutRecords', { Records: base64(records) }).ok).toBe(false);
  });
});

describe('what neither engine nor rule refuses', () => {
  test('a record of 1 MiB - 1 byte of data with a one-character key', async () => {
    expect(await putRecord(MIB - 1, 'p')).toEqual({ accepted: true });
    expect(recordRule(MIB - 1, 'p').ok).toBe(true);
  });
});

describe('kinesalite refuses what Kinesis accepts (the layer cannot undo an engine’s refusal)', () => {
  test('a PutRecords body over 7 MiB gets a bare 413, where the 2025 API Reference allows 10 MiB', async () => {
    const records = Array.from({ length: 6 }, (_, i) => ({ Data: new Uint8Array(MIB - 8), PartitionKey: `k${i}` }));
    expect(await verdict(kinesis.send(new PutRecordsCommand({ StreamName: streamName, Records: records })))).toMatchObject({ accepted: false, status: 413 });
    expect(checkRequest('kinesis', 'PutRecords', { Records: base64(records) }, { kinesis: { maxPutRecordsBytes: 10 * MIB } }).ok).toBe(true);
  });
});
