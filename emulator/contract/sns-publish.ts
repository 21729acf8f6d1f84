/**
 * SNS's rules for Publish (API Reference: Publish; Developer Guide: "Amazon SNS message
 * attributes"): a non-empty message; the message plus its attributes (name, type, value) within
 * the topic's `MaximumMessageSize` (256 KiB unless the topic raises it); a subject, when given,
 * of 1..99 characters without line breaks or control characters; and the attribute rules. The
 * messages are AWS's (LocalStack's validated SNS snapshots: `test_publish_too_long_message`,
 * `test_empty_sns_message`, `test_publish_with_empty_subject`, `test_empty_or_wrong_message_attributes`)
 * except where a comment says the wording was not found. SNS has no Publish-time limit on the
 * number of attributes: a message with more than 10 is dropped only on its way to a raw-delivery
 * SQS subscription, which a request rule cannot see.
 */
import { blobBytes, fail, firstFailure, OK, utf8Bytes, type AwsError, type CheckResult } from './aws-error';
import type { SnsFacts } from './facts';
import { SNS_LIMITS } from '../../aws/limits';

/** One attribute as Publish carries it (`BinaryValue` in base64 on the wire). */
export interface SnsAttributeValue {
  readonly DataType?: string;
  readonly StringValue?: string;
  readonly BinaryValue?: string | Uint8Array;
}

/** The parts of a Publish request that the rules read. */
export interface SnsPublishInput {
  readonly Message?: string;
  readonly Subject?: string;
  readonly MessageAttributes?: Readonly<Record<string, SnsAttributeValue>>;
}

export const SNS_RULES = {
  emptyMessage: 'sns.message.empty',
  size: 'sns.message-size',
  subject: 'sns.subject',
  attributeName: 'sns.message-attributes.name',
  attributeType: 'sns.message-attributes.type',
  attributeValue: 'sns.message-attributes.value',
} as const;

const NAME_CHARACTER = /[A-Za-z0-9_.-]/;
const RESERVED_PREFIX = /^(aws|amazon)\./i;
const DATA_TYPE = /^(String|Number|Binary)(\..+)?$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Every Publish rule, in order: message, subject, attributes, size. */
export function checkSnsPublish(input: SnsPublishInput, facts: SnsFacts = {}): CheckResult {
  const attributes = Object.entries(input.MessageAttributes ?? {});
  return firstFailure([
    () => (input.Message === undefined || input.Message === '' ? invalidParameter(SNS_RULES.emptyMessage, 'Invalid parameter: Empty message') : OK),
    () => checkSubject(input.Subject),
    ...attributes.map(([name, value]) => () => checkAttribute(name, value)),
    () => checkSize(input, facts.maximumMessageSize ?? SNS_LIMITS.defaultMaxMessageBytes),
  ]);
}

/** The size SNS checks against the topic's limit: the message plus each attribute's name, type and value. */
export function snsMessageBytes(input: SnsPublishInput): number {
  const attributes = Object.entries(input.MessageAttributes ?? {});
  return attributes.reduce(
    (sum, [name, value]) => sum + utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? '') + blobBytes(value.BinaryValue),
    utf8Bytes(input.Message ?? ''),
  );
}

function checkSubject(subject: string | undefined): CheckResult {
  if (subject === undefined) return OK;
  const valid = subject.length > 0 && subject.length <= SNS_LIMITS.maxSubjectLength && !hasControlOrLineBreak(subject);
  // AWS's message for an empty subject; assumed the same for the other broken subjects.
  return valid ? OK : invalidParameter(SNS_RULES.subject, 'Invalid parameter: Subject');
}

/** C0 and C1 controls (line feeds among them) and the Unicode line and paragraph separators. */
function hasControlOrLineBreak(text: string): boolean {
  return [...text].some((char) => {
    const code = char.codePointAt(0) ?? 0;
    return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
  });
}

function checkSize(input: SnsPublishInput, limit: number): CheckResult {
  return snsMessageBytes(input) <= limit ? OK : invalidParameter(SNS_RULES.size, 'Invalid parameter: Message too long');
}

function checkAttribute(name: string, value: SnsAttributeValue): CheckResult {
  return firstFailure([() => checkName(name), () => checkTypeAndValue(name, value)]);
}

function checkName(name: string): CheckResult {
  if (utf8Bytes(name) > SNS_LIMITS.maxAttributeNameBytes) return valueInvalid(SNS_RULES.attributeName, 'Length of message attribute name must be less than 256 bytes.');
  if (name.startsWith('.')) return valueInvalid(SNS_RULES.attributeName, "Invalid message attribute name starting with character '.' was found.");
  if (name.endsWith('.')) return valueInvalid(SNS_RULES.attributeName, "Invalid message attribute name ending with character '.' was found.");
  const bad = [...name].find((char) => !NAME_CHARACTER.test(char));
  if (bad !== undefined) {
    const hex = (bad.codePointAt(0) ?? 0).toString(16).toUpperCase();
    return valueInvalid(SNS_RULES.attributeName, `Invalid non-alphanumeric character '#x${hex}' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots.`);
  }
  if (name.includes('..')) return valueInvalid(SNS_RULES.attributeName, "Message attribute name can not have successive '.' character.");
  // Reserved by the Developer Guide; AWS's wording was not found.
  return RESERVED_PREFIX.test(name) ? valueInvalid(SNS_RULES.attributeName, `Invalid message attribute name '${name}': names beginning with 'AWS.' or 'Amazon.' are reserved.`) : OK;
}

function checkTypeAndValue(name: string, value: SnsAttributeValue): CheckResult {
  const type = value.DataType ?? '';
  const base = DATA_TYPE.exec(type)?.[1];
  if (base === undefined) {
    return valueInvalid(SNS_RULES.attributeType, `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`);
  }
  const field = base === 'Binary' ? 'Binary' : 'String';
  const given = field === 'Binary' ? value.BinaryValue : value.StringValue;
  if (given === undefined && (field === 'Binary' ? value.StringValue : value.BinaryValue) !== undefined) {
    return valueInvalid(SNS_RULES.attributeValue, `The message attribute '${name}' with type '${type}' must use field '${field}'.`);
  }
  if (given === undefined || given.length === 0) {
    return valueInvalid(SNS_RULES.attributeValue, `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${type}'.`);
  }
  // AWS's wording for a Number that is not one was not found.
  return base === 'Number' && !NUMBER.test(String(given)) ? valueInvalid(SNS_RULES.attributeValue, `Could not cast message attribute '${name}' value to number.`) : OK;
}

function invalidParameter(rule: string, message: string): CheckResult {
  return fail(snsError(rule, 'InvalidParameter', message));
}

function valueInvalid(rule: string, message: string): CheckResult {
  return fail(snsError(rule, 'ParameterValueInvalid', message));
}

function snsError(rule: string, code: string, message: string): AwsError {
  return { rule, code, message, status: 400, fault: 'Sender', jsonType: `com.amazonaws.sns#${code}`, messageKey: 'message' };
}
