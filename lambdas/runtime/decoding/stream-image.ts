/**
 * DynamoDB stream images as plain values, each number in the form the decoder was told to give.
 * DynamoDB numbers carry up to 38 significant digits, sent as text (`{ "N": "123.45" }`); a
 * JavaScript number keeps about 17. So the choice is made here, at the boundary, and never
 * silently: a number arrives exactly, or its record fails.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
 */
import type { AttributeValue, StreamRecord } from 'aws-lambda';
import { NumberValueImpl as NumberValue } from '@aws-sdk/util-dynamodb';
import { exactNumber } from '../core/decimal';
import { ConfigurationError, UndecodableRecordError } from '../core/errors';

/**
 * A DynamoDB number kept as its text (`value`), what `numbers: 'lossless'` gives: util-dynamodb's
 * class (lib-dynamodb's `NumberValue`), re-exported so that a schema's `instanceof` names the
 * class the runtime builds. `toString()` gives the text, `toBigInt()` an integer's value.
 */
export { NumberValue };

/** How a DynamoDB Streams decoder hands over numbers (an `N`, and each member of an `NS`). */
export const StreamNumbers = {
  /** A JavaScript `number` when one holds the DynamoDB number exactly; any other fails its record (UndecodableRecordError). */
  NUMBER: 'number',
  /** Every number as a `NumberValue` that keeps DynamoDB's text: nothing is lost, nothing fails. */
  LOSSLESS: 'lossless',
} as const;
export type StreamNumbers = (typeof StreamNumbers)[keyof typeof StreamNumbers];

/** The form numbers arrive in unless a decoder is told otherwise. */
const DEFAULT_STREAM_NUMBERS: StreamNumbers = StreamNumbers.NUMBER;

/** How `dynamoStreamDecoder` turns a change into an event. */
export interface DynamoStreamDecoderOptions {
  /**
   * The form numbers arrive in. `number`: a JavaScript number when one holds the DynamoDB number
   * exactly (its shortest spelling is the same decimal), and any other number (more than 17
   * significant digits, an integer past 2^53 such as `9007199254740993`) fails its record alone,
   * permanently, to the DLQ, with an UndecodableRecordError naming the attribute and the value.
   * `lossless`: every number is a `NumberValue` holding DynamoDB's text (a schema names it with
   * `z.instanceof(NumberValue)`, imported from this package).
   * @default 'number'
   */
  readonly numbers?: StreamNumbers;
}

const NUMBER_FORMS: Readonly<Record<StreamNumbers, (text: string, path: string) => number | NumberValue>> = {
  [StreamNumbers.NUMBER]: exactNumberAt,
  [StreamNumbers.LOSSLESS]: (text) => NumberValue.from(text),
};

/** A `numbers` option, checked (for callers in plain JavaScript); the default when none is given. @throws ConfigurationError naming the value and the allowed ones */
export function streamNumbersOf(numbers: unknown): StreamNumbers {
  if (numbers === undefined) return DEFAULT_STREAM_NUMBERS;
  if (typeof numbers === 'string' && Object.prototype.hasOwnProperty.call(NUMBER_FORMS, numbers)) return numbers as StreamNumbers;
  throw new ConfigurationError(`numbers must be one of ${Object.keys(NUMBER_FORMS).join(', ')} (given ${JSON.stringify(numbers)})`);
}

/** The keys and images of a stream record's change, as plain values. @throws UndecodableRecordError */
export function streamImages(change: StreamRecord | undefined, numbers: StreamNumbers = DEFAULT_STREAM_NUMBERS) {
  return {
    keys: unmarshallImage(change?.Keys, 'Keys', numbers) ?? {},
    newImage: unmarshallImage(change?.NewImage, 'NewImage', numbers),
    oldImage: unmarshallImage(change?.OldImage, 'OldImage', numbers),
  };
}

/**
 * A stream image as a plain object: `S` and `B` (base64 text in a Lambda event) as strings,
 * `BOOL` as a boolean, `NULL` as null, `L` as an array, `M` as an object, `SS`, `NS` and `BS` as
 * Sets, `N` as `numbers` says. `name` is where the image sits in the record (`NewImage`): errors
 * name the attribute's path from there.
 *
 * @throws UndecodableRecordError for a number the form cannot hold, or a value of no DynamoDB type
 */
export function unmarshallImage(
  image: Record<string, AttributeValue> | undefined,
  name = 'image',
  numbers: StreamNumbers = DEFAULT_STREAM_NUMBERS,
): Record<string, unknown> | undefined {
  return image ? mapOf(image, name, NUMBER_FORMS[numbers]) : undefined;
}

type NumberForm = (text: string, path: string) => unknown;

function mapOf(map: Record<string, AttributeValue>, path: string, number: NumberForm): Record<string, unknown> {
  // fromEntries defines each key, so an attribute named __proto__ stays an attribute.
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, nativeOf(value, attributePath(path, name), number)]));
}

function nativeOf(value: AttributeValue, path: string, number: NumberForm): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return number(value.N, path);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.B !== undefined) return value.B;
  if (value.M !== undefined) return mapOf(value.M, path, number);
  if (value.L !== undefined) return value.L.map((item, index) => nativeOf(item, `${path}[${index}]`, number));
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map((text) => number(text, path)));
  if (value.BS !== undefined) return new Set(value.BS);
  throw new UndecodableRecordError(`${path} holds no DynamoDB attribute value (its fields: ${Object.keys(value).join(', ') || 'none'})`);
}

/** `NewImage.total`, or `NewImage["unit price"]` for a name that is not an identifier. */
function attributePath(path: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`;
}

function exactNumberAt(text: string, path: string): number {
  const value = exactNumber(text);
  if (value !== undefined) return value;
  throw new UndecodableRecordError(
    `${path} is the DynamoDB number ${text}, which no JavaScript number holds exactly (Number() would make it ${Number(text)}): ` +
      `decode with dynamoStreamDecoder(keyOf, { numbers: '${StreamNumbers.LOSSLESS}' }) to receive every number as a NumberValue, its text kept`,
  );
}
