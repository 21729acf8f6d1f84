/**
 * SQS's message attribute rules: how many, the names, the data types and the values. Sources:
 * the Developer Guide's "Amazon SQS message attributes" (names, types, at most 10), the API
 * Reference's `MessageAttributeValue`, and messages recorded from AWS (count: aws-sdk-js#2876 and
 * SDK errors quoted in the wild; names and types: LocalStack's AWS-validated SQS tests; an empty
 * value: LocalStack's snapshot `test_send_message_with_empty_string_attribute`). Where no AWS
 * wording was found the message says so in its comment; the code (InvalidParameterValue, 400)
 * is AWS's in every case.
 */
import { fail, firstFailure, OK, utf8Bytes, type CheckResult } from './aws-error';
import { SQS_LIMITS } from '../../aws/limits';
import { sqsError } from './sqs-errors';
import { firstRefusedCharacter, SQS_ALLOWED_CHARACTERS } from './sqs-text';

/** One message attribute as the JSON protocol carries it (`BinaryValue` in base64). */
export interface SqsAttributeValue {
  readonly DataType?: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string | Uint8Array;
}

/** A message's attributes, by name. */
export type SqsAttributes = Readonly<Record<string, SqsAttributeValue>>;

export const SQS_ATTRIBUTE_RULES = {
  count: 'sqs.message-attributes.count',
  name: 'sqs.message-attributes.name',
  type: 'sqs.message-attributes.type',
  value: 'sqs.message-attributes.value',
} as const;

// ASCII letters, digits, `_`, `-`, `.`; AWS also took "attr.1øßä" in a validated test, so the
// Latin-1 and Latin Extended-A letters (U+00C0..U+017F) are allowed rather than refused wrongly.
const NAME_CHARACTERS = /^[A-Za-z0-9_.\u00C0-\u017F-]+$/;
const RESERVED_OR_PERIOD = /^(aws\.|amazon\.|\.)|\.$/i;
const DATA_TYPE = /^(String|Number|Binary)/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Every attribute rule, in the order SQS applies them: the count, then each attribute in turn. */
export function checkSqsAttributes(attributes: SqsAttributes | undefined): CheckResult {
  const entries = Object.entries(attributes ?? {});
  if (entries.length > SQS_LIMITS.maxAttributes) {
    return fail(sqsError(SQS_ATTRIBUTE_RULES.count, 'InvalidParameterValue', `Number of message attributes [${entries.length}] exceeds the allowed maximum [${SQS_LIMITS.maxAttributes}].`));
  }
  return firstFailure(entries.map(([name, value]) => () => checkAttribute(name, value)));
}

function checkAttribute(name: string, value: SqsAttributeValue): CheckResult {
  return firstFailure([() => checkName(name), () => checkType(value.DataType ?? ''), () => checkValue(name, value)]);
}

function checkName(name: string): CheckResult {
  if (utf8Bytes(name) > SQS_LIMITS.maxAttributeNameBytes) return nameError('Message (user) attribute names must be shorter than 256 Bytes');
  if (!NAME_CHARACTERS.test(name)) {
    return nameError('Message (user) attributes name can only contain upper and lower score characters, digits, periods, hyphens and underscores. ');
  }
  if (RESERVED_OR_PERIOD.test(name)) {
    return nameError("You can't use message attribute names beginning with 'AWS.' or 'Amazon.'. These strings are reserved for internal use. Additionally, they cannot start or end with '.'.");
  }
  // AWS's wording for this case was not found; the rule is the Developer Guide's.
  return name.includes('..') ? nameError(`Message (user) attribute name '${name}' must not have successive '.' characters.`) : OK;
}

function checkType(type: string): CheckResult {
  if (type === '') return typeError('Missing required parameter DataType');
  if (!DATA_TYPE.test(type)) {
    return typeError(`Type for parameter MessageAttributes.Attribute_name.DataType must be prefixed with "String", "Binary", or "Number", but was: ${type}`);
  }
  return utf8Bytes(type) > SQS_LIMITS.maxAttributeTypeBytes ? typeError('Message (user) attribute types must be shorter than 256 Bytes') : OK;
}

function checkValue(name: string, value: SqsAttributeValue): CheckResult {
  const base = DATA_TYPE.exec(value.DataType ?? '')?.[1];
  if (base === 'Binary') return OK;
  const text = value.StringValue ?? '';
  if (text === '') return valueError(`Message (user) attribute '${name}' must contain a non-empty value of type '${base}'.`);
  if (base === 'Number' && !NUMBER.test(text)) return valueError(`Can't cast the value of message (user) attribute '${name}' to a number.`);
  const refused = firstRefusedCharacter(text);
  // AWS answers InvalidParameterValue here (LocalStack's validated test); its wording was not found.
  return refused === undefined ? OK : valueError(`Message (user) attribute '${name}' value contains the character '${refused}', outside the allowed set ${SQS_ALLOWED_CHARACTERS}.`);
}

const nameError = (message: string): CheckResult => fail(sqsError(SQS_ATTRIBUTE_RULES.name, 'InvalidParameterValue', message));
const typeError = (message: string): CheckResult => fail(sqsError(SQS_ATTRIBUTE_RULES.type, 'InvalidParameterValue', message));
const valueError = (message: string): CheckResult => fail(sqsError(SQS_ATTRIBUTE_RULES.value, 'InvalidParameterValue', message));
