import { CONSUMER_ENV } from '../../../aws/consumer-env';
import { ENVELOPE_FORMATS, EnvelopeFormat, isEnvelopeFormat } from '../../../aws/envelope-formats';
import { cloudEventDecoder } from './cloudevent';
import { ConfigurationError } from '../core/errors';
import { eventBridgeDecoder, parseEventIdPath } from './eventbridge-event';
import { SourceKind } from './records';
import { defaultDecoder, envelopeDecoder, type EventDecoder } from './routes';
import { snsNotificationDecoder } from './sns-notification';

type Env = Readonly<Record<string, string | undefined>>;

/** The shape a consumer's events arrive in, and so how it finds each event's dedup key. */
export interface EnvelopeOptions {
  readonly format: EnvelopeFormat;
  /**
   * EventBridge only: the dotted path under `detail` of the event's business key, when `detail` is
   * not our envelope (see `eventBridgeDecoder`).
   * @default - `detail` is our envelope
   */
  readonly eventIdPath?: string;
}

/**
 * The decoder of a format: our envelope as the body (`native`), inside an SNS notification, as
 * an EventBridge event's `detail` (or keyed by `eventIdPath`), or a CloudEvent.
 *
 * @throws ConfigurationError for an unknown format, or an `eventIdPath` that is not for EventBridge or not under `detail`
 * @example
 * ```ts
 * import { decoderFor, EnvelopeFormat } from 'effectively-once/runtime';
 * const decode = decoderFor({ format: EnvelopeFormat.EVENTBRIDGE, eventIdPath: 'detail.orderId' });
 * ```
 */
export function decoderFor(options: EnvelopeOptions): EventDecoder {
  checkEnvelopeOptions(options, { format: 'format', eventIdPath: 'eventIdPath' });
  switch (options.format) {
    case EnvelopeFormat.NATIVE:
      return envelopeDecoder;
    case EnvelopeFormat.SNS:
      return snsNotificationDecoder;
    case EnvelopeFormat.EVENTBRIDGE:
      return eventBridgeDecoder({ eventIdPath: options.eventIdPath });
    case EnvelopeFormat.CLOUDEVENTS:
      return cloudEventDecoder;
  }
}

/**
 * The envelope the consumer's construct declared, from `EVENT_ENVELOPE` and `EVENT_ID_PATH`;
 * undefined when `EVENT_ENVELOPE` is unset (our own envelope).
 *
 * @throws ConfigurationError naming the variable, the value given and what is allowed
 */
export function envelopeFromEnv(env: Env = process.env): EnvelopeOptions | undefined {
  const format = env[CONSUMER_ENV.envelope] || undefined;
  const eventIdPath = env[CONSUMER_ENV.eventIdPath] || undefined;
  if (format === undefined) {
    if (eventIdPath === undefined) return undefined;
    throw new ConfigurationError(`environment variable ${CONSUMER_ENV.eventIdPath} is set ("${eventIdPath}") but ${CONSUMER_ENV.envelope} is not: it applies only to ${CONSUMER_ENV.envelope}=${EnvelopeFormat.EVENTBRIDGE}`);
  }
  const options = { format: format as EnvelopeFormat, ...(eventIdPath !== undefined && { eventIdPath }) };
  checkEnvelopeOptions(options, { format: `environment variable ${CONSUMER_ENV.envelope}`, eventIdPath: `environment variable ${CONSUMER_ENV.eventIdPath}` });
  return options;
}

/** What each setting is called where it was given, for error messages. */
interface SettingNames {
  readonly format: string;
  readonly eventIdPath: string;
}

function checkEnvelopeOptions(options: EnvelopeOptions, names: SettingNames): void {
  if (!isEnvelopeFormat(options.format)) {
    throw new ConfigurationError(`${names.format} must be one of ${ENVELOPE_FORMATS.join(', ')} (given "${String(options.format)}")`);
  }
  if (options.eventIdPath === undefined) return;
  if (options.format !== EnvelopeFormat.EVENTBRIDGE) {
    throw new ConfigurationError(`${names.eventIdPath} applies only to the ${EnvelopeFormat.EVENTBRIDGE} format (the format is ${options.format})`);
  }
  parseEventIdPath(options.eventIdPath, names.eventIdPath);
}

/** What a consumer says about decoding: its source, and its own decoder or envelope, if any. */
export interface DecoderChoice {
  readonly source: SourceKind;
  readonly decode?: EventDecoder;
  readonly envelope?: EnvelopeOptions;
}

/**
 * The decoder a consumer uses: its own `decode`; else the decoder of its envelope, given or read
 * from the environment its construct set; else the source's default.
 *
 * @throws ConfigurationError when `decode` and `envelope` are both given, when the given envelope
 * and the environment's disagree, or for an envelope other than native on a DynamoDB stream
 */
export function consumerDecoder(choice: DecoderChoice, env: Env = process.env): EventDecoder {
  if (choice.decode !== undefined) {
    if (choice.envelope !== undefined) throw new ConfigurationError('a consumer takes decode or envelope, not both: envelope would be ignored');
    return choice.decode;
  }
  const envelope = agreedEnvelope(choice.envelope, envelopeFromEnv(env));
  if (envelope === undefined) return defaultDecoder(choice.source);
  const decode = decoderFor(envelope);
  if (envelope.format === EnvelopeFormat.NATIVE) return defaultDecoder(choice.source);
  if (choice.source === SourceKind.DYNAMODB_STREAM) {
    throw new ConfigurationError(`the ${envelope.format} envelope does not apply to a DynamoDB Streams consumer: its records are table changes, not messages`);
  }
  return decode;
}

/** The envelope the handler and the infrastructure agree on. @throws ConfigurationError when they disagree */
function agreedEnvelope(given: EnvelopeOptions | undefined, fromEnv: EnvelopeOptions | undefined): EnvelopeOptions | undefined {
  if (given === undefined || fromEnv === undefined) return given ?? fromEnv;
  if (given.format === fromEnv.format && given.eventIdPath === fromEnv.eventIdPath) return given;
  throw new ConfigurationError(
    `the consumer's envelope option (format ${given.format}, eventIdPath ${given.eventIdPath ?? 'unset'}) disagrees with what its construct set ` +
      `(${CONSUMER_ENV.envelope}=${fromEnv.format}, ${CONSUMER_ENV.eventIdPath}=${fromEnv.eventIdPath ?? 'unset'}): the handler and the infrastructure must name the same envelope`,
  );
}
