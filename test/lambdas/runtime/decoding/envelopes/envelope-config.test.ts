/**
 * Choosing a consumer's decoder: the envelope read from the environment its construct set, given
 * in the consumer's options, or both (then they must agree). A setting that cannot work is a
 * ConfigurationError when the consumer is created, never a poison record per message.
 */
import { EnvelopeFormat } from '../../../../../aws/envelope-formats';
import { consumerEnv } from '../../../../../lambdas/runtime/consumer/config';
import { createConsumer, type ConsumerOptions } from '../../../../../lambdas/runtime/consumer/consumer';
import { consumerDecoder, decoderFor, envelopeFromEnv, type EnvelopeOptions } from '../../../../../lambdas/runtime/decoding/envelope-decoders';
import { cloudEventDecoder } from '../../../../../lambdas/runtime/decoding/cloudevent';
import { ConfigurationError } from '../../../../../lambdas/runtime/core/errors';
import { SourceKind } from '../../../../../lambdas/runtime/decoding/records';
import { envelopeDecoder, type EventDecoder } from '../../../../../lambdas/runtime/decoding/routes';
import { snsNotificationDecoder } from '../../../../../lambdas/runtime/decoding/sns-notification';
import { recordingObservability } from '../../../../helpers/fakes';
import { ec2StateChange, eventBridgeWithEnvelope, recordOf, snsNotification, VIEW } from './fixtures';

describe('envelopeFromEnv', () => {
  test.each([
    [{}, undefined],
    [{ EVENT_ENVELOPE: '' }, undefined],
    [{ EVENT_ENVELOPE: 'native' }, { format: 'native' }],
    [{ EVENT_ENVELOPE: 'sns' }, { format: 'sns' }],
    [{ EVENT_ENVELOPE: 'cloudevents' }, { format: 'cloudevents' }],
    [{ EVENT_ENVELOPE: 'eventbridge' }, { format: 'eventbridge' }],
    [{ EVENT_ENVELOPE: 'eventbridge', EVENT_ID_PATH: 'detail.orderId' }, { format: 'eventbridge', eventIdPath: 'detail.orderId' }],
    [{ EVENT_ENVELOPE: 'eventbridge', EVENT_ID_PATH: '' }, { format: 'eventbridge' }],
  ])('%p -> %p', (env, expected) => {
    expect(envelopeFromEnv(env)).toEqual(expected);
  });

  test.each(['SNS', 'sqs', 'cloudevent', ' sns', 'json'])('rejects EVENT_ENVELOPE=%p, naming the variable and the allowed values', (value) => {
    expect(() => envelopeFromEnv({ EVENT_ENVELOPE: value })).toThrow(ConfigurationError);
    expect(() => envelopeFromEnv({ EVENT_ENVELOPE: value })).toThrow(`environment variable EVENT_ENVELOPE must be one of native, sns, eventbridge, cloudevents (given "${value}")`);
  });

  test('rejects EVENT_ID_PATH=id: EventBridge\'s own id changes on a retried PutEvents', () => {
    expect(() => envelopeFromEnv({ EVENT_ENVELOPE: 'eventbridge', EVENT_ID_PATH: 'id' })).toThrow(/^environment variable EVENT_ID_PATH "id" names EventBridge's own event id/);
  });

  test('rejects an EVENT_ID_PATH outside detail', () => {
    expect(() => envelopeFromEnv({ EVENT_ENVELOPE: 'eventbridge', EVENT_ID_PATH: 'source' })).toThrow('environment variable EVENT_ID_PATH must be a dotted path under detail');
  });

  test('rejects EVENT_ID_PATH with another format', () => {
    expect(() => envelopeFromEnv({ EVENT_ENVELOPE: 'sns', EVENT_ID_PATH: 'detail.orderId' })).toThrow('environment variable EVENT_ID_PATH applies only to the eventbridge format (the format is sns)');
  });

  test('rejects EVENT_ID_PATH without EVENT_ENVELOPE', () => {
    expect(() => envelopeFromEnv({ EVENT_ID_PATH: 'detail.orderId' })).toThrow('environment variable EVENT_ID_PATH is set ("detail.orderId") but EVENT_ENVELOPE is not');
  });

  test('consumerEnv reads the envelope with the other settings', () => {
    expect(consumerEnv('c', { EVENT_ENVELOPE: 'sns' }).envelope).toEqual({ format: 'sns' });
    expect(consumerEnv('c', {}).envelope).toBeUndefined();
    expect(() => consumerEnv('c', { EVENT_ENVELOPE: 'xml' })).toThrow('EVENT_ENVELOPE');
  });
});

describe('decoderFor', () => {
  test.each<[EnvelopeOptions, EventDecoder]>([
    [{ format: EnvelopeFormat.NATIVE }, envelopeDecoder],
    [{ format: EnvelopeFormat.SNS }, snsNotificationDecoder],
    [{ format: EnvelopeFormat.CLOUDEVENTS }, cloudEventDecoder],
  ])('%p', (options, decoder) => {
    expect(decoderFor(options)).toBe(decoder);
  });

  test('eventbridge, with and without an eventIdPath', () => {
    expect(decoderFor({ format: EnvelopeFormat.EVENTBRIDGE })(recordOf(eventBridgeWithEnvelope())).eventId).toBe(VIEW.eventId);
    expect(decoderFor({ format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail.instance-id' })(recordOf(ec2StateChange())).type).toBe('EC2 Instance State-change Notification');
  });

  test.each([EnvelopeFormat.NATIVE, EnvelopeFormat.SNS, EnvelopeFormat.CLOUDEVENTS])('an eventIdPath with %s is refused', (format) => {
    expect(() => decoderFor({ format, eventIdPath: 'detail.orderId' })).toThrow(`eventIdPath applies only to the eventbridge format (the format is ${format})`);
  });

  test('eventIdPath "id" is refused', () => {
    expect(() => decoderFor({ format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'id' })).toThrow(ConfigurationError);
  });

  test('an unknown format (from JavaScript, unchecked) is refused', () => {
    expect(() => decoderFor({ format: 'kafka' as EnvelopeFormat })).toThrow('format must be one of native, sns, eventbridge, cloudevents (given "kafka")');
  });
});

describe('the decoder a consumer uses', () => {
  const sns: EnvelopeOptions = { format: EnvelopeFormat.SNS };
  const custom: EventDecoder = () => VIEW;

  test('nothing said anywhere: the source\'s default', () => {
    expect(consumerDecoder({ source: SourceKind.SQS }, {})).toBe(envelopeDecoder);
  });

  test('the environment alone decides when the options say nothing', () => {
    expect(consumerDecoder({ source: SourceKind.SQS }, { EVENT_ENVELOPE: 'sns' })).toBe(snsNotificationDecoder);
  });

  test('the options alone decide when the environment says nothing', () => {
    expect(consumerDecoder({ source: SourceKind.SQS, envelope: sns }, {})).toBe(snsNotificationDecoder);
  });

  test('options and environment that agree', () => {
    expect(consumerDecoder({ source: SourceKind.SQS, envelope: sns }, { EVENT_ENVELOPE: 'sns' })).toBe(snsNotificationDecoder);
  });

  test('options and environment that name different formats: the infrastructure and the handler disagree', () => {
    expect(() => consumerDecoder({ source: SourceKind.SQS, envelope: sns }, { EVENT_ENVELOPE: 'eventbridge' })).toThrow(ConfigurationError);
    expect(() => consumerDecoder({ source: SourceKind.SQS, envelope: sns }, { EVENT_ENVELOPE: 'eventbridge' })).toThrow(
      "the consumer's envelope option (format sns, eventIdPath unset) disagrees with what its construct set (EVENT_ENVELOPE=eventbridge, EVENT_ID_PATH=unset)",
    );
  });

  test('an explicit native in the environment disagrees with an SNS option too', () => {
    expect(() => consumerDecoder({ source: SourceKind.SQS, envelope: sns }, { EVENT_ENVELOPE: 'native' })).toThrow(ConfigurationError);
  });

  test('options and environment that name different eventIdPaths disagree', () => {
    const envelope = { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail.orderId' };
    expect(() => consumerDecoder({ source: SourceKind.SQS, envelope }, { EVENT_ENVELOPE: 'eventbridge', EVENT_ID_PATH: 'detail.order.id' })).toThrow(/disagrees/);
    expect(() => consumerDecoder({ source: SourceKind.SQS, envelope }, { EVENT_ENVELOPE: 'eventbridge' })).toThrow(/disagrees/);
  });

  test('a decoder of the consumer\'s own wins over the environment', () => {
    expect(consumerDecoder({ source: SourceKind.SQS, decode: custom }, { EVENT_ENVELOPE: 'sns' })).toBe(custom);
  });

  test('decode and envelope together are refused: one of them would be ignored', () => {
    expect(() => consumerDecoder({ source: SourceKind.SQS, decode: custom, envelope: sns }, {})).toThrow('a consumer takes decode or envelope, not both');
  });

  test('a DynamoDB Streams consumer takes no envelope but native', () => {
    expect(() => consumerDecoder({ source: SourceKind.DYNAMODB_STREAM, envelope: sns }, {})).toThrow('the sns envelope does not apply to a DynamoDB Streams consumer');
    expect(() => consumerDecoder({ source: SourceKind.DYNAMODB_STREAM }, { EVENT_ENVELOPE: 'cloudevents' })).toThrow(ConfigurationError);
    expect(consumerDecoder({ source: SourceKind.DYNAMODB_STREAM }, { EVENT_ENVELOPE: 'native' })).not.toBe(envelopeDecoder);
  });

  test('a Kinesis consumer may take CloudEvents', () => {
    expect(consumerDecoder({ source: SourceKind.KINESIS, envelope: { format: EnvelopeFormat.CLOUDEVENTS } }, {})).toBe(cloudEventDecoder);
  });
});

describe('createConsumer checks the envelope when it is created', () => {
  const saved = { envelope: process.env.EVENT_ENVELOPE, path: process.env.EVENT_ID_PATH };
  afterEach(() => {
    restore('EVENT_ENVELOPE', saved.envelope);
    restore('EVENT_ID_PATH', saved.path);
  });

  const options = (overrides: Partial<ConsumerOptions<string>> = {}): ConsumerOptions<string> => ({
    name: 'c',
    source: SourceKind.SQS,
    routes: {},
    strategy: { apply: async () => new Map() },
    observability: recordingObservability(),
    ...overrides,
  });

  test('reads EVENT_ENVELOPE from process.env', () => {
    process.env.EVENT_ENVELOPE = 'sns';
    expect(() => createConsumer(options({ envelope: { format: EnvelopeFormat.CLOUDEVENTS } }))).toThrow(/disagrees/);
    expect(() => createConsumer(options({ envelope: { format: EnvelopeFormat.SNS } }))).not.toThrow();
  });

  test('a malformed EVENT_ENVELOPE fails createConsumer, not each record', () => {
    process.env.EVENT_ENVELOPE = 'snss';
    expect(() => createConsumer(options())).toThrow(ConfigurationError);
  });

  test('an eventIdPath of "id" fails createConsumer', () => {
    delete process.env.EVENT_ENVELOPE;
    expect(() => createConsumer(options({ envelope: { format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'id' } }))).toThrow(ConfigurationError);
  });

  test('the consumer then decodes with the envelope it was given', async () => {
    delete process.env.EVENT_ENVELOPE;
    const seen: string[] = [];
    const consumer = createConsumer(options({
      envelope: { format: EnvelopeFormat.SNS },
      routes: { 'page.viewed': { handle: (event) => event.eventId } },
      strategy: { apply: async (events) => new Map(events.map((accepted) => (seen.push(String(accepted.invoke())), [accepted.index, { status: 'applied' }]))) },
    }));
    const record = { ...recordOf(snsNotification()).raw } as import('aws-lambda').SQSRecord;
    expect(await consumer({ Records: [record] })).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual([VIEW.eventId]);
  });
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
