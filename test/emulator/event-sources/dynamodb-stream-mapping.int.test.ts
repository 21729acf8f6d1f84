/** The stream mapping against DynamoDB Local's table streams: the shared stream behaviours. */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { destroyClients } from '../../../emulator/engines';
import { createTable, testClients, uniqueName } from '../../helpers/engines';
import { tableStreamsClient } from '../../helpers/streams';
import { describeStreamMapping, type StreamSource, type StreamUnderTest } from './stream-scenarios';

const clients = testClients();
const dynamodbStreams = tableStreamsClient();
afterAll(() => {
  destroyClients(clients);
  dynamodbStreams.destroy();
});
const { dynamodb, sqs } = clients;

/** A table with a stream; each payload is written as a new item keyed by it, so each is one INSERT record. */
async function tableStream(): Promise<StreamUnderTest<DynamoDBRecord>> {
  const { tableName, streamArn } = await createTable(dynamodb, { name: uniqueName('mapped'), partitionKey: 'pk', stream: true });
  if (streamArn === undefined) throw new Error(`Table ${tableName} has no stream`);
  return {
    kind: 'dynamodb-stream',
    streamArn,
    put: async (payloads) => {
      for (const pk of payloads) await dynamodb.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: pk } } }));
    },
    payloadOf: (record) => record.dynamodb?.Keys?.pk?.S ?? '',
    sequenceNumberOf: (record) => record.dynamodb?.SequenceNumber ?? '',
  };
}

const source: StreamSource<DynamoDBRecord> = { name: 'DynamoDB Streams', clients: () => ({ dynamodbStreams, sqs }), create: tableStream };

describeStreamMapping(source);
