/**
 * SNS speaks the query protocol: a Publish arrives form-encoded (`Action=Publish&Message=…`,
 * attributes as `MessageAttributes.entry.N.Name` and `MessageAttributes.entry.N.Value.*`). This
 * turns such a form into the input the SNS rules read.
 */
import type { SnsAttributeValue, SnsPublishInput } from './sns-publish';

const ATTRIBUTE_FIELD = /^MessageAttributes\.entry\.(\d+)\.(Name|Value\.DataType|Value\.StringValue|Value\.BinaryValue)$/;

type AttributeParts = { Name?: string } & { -readonly [K in keyof SnsAttributeValue]?: string };

/**
 * The Publish input a form carries.
 *
 * @example snsPublishFromForm(new URLSearchParams(body)) // { Message, Subject, MessageAttributes }
 */
export function snsPublishFromForm(form: URLSearchParams): SnsPublishInput & { readonly Action?: string } {
  const entries = new Map<string, AttributeParts>();
  for (const [field, value] of form) {
    const match = ATTRIBUTE_FIELD.exec(field);
    if (match === null) continue;
    const [, index = '', part = ''] = match;
    const entry = entries.get(index) ?? {};
    entry[part.replace('Value.', '') as keyof AttributeParts] = value;
    entries.set(index, entry);
  }
  return { Action: optional(form, 'Action'), Message: optional(form, 'Message'), Subject: optional(form, 'Subject'), MessageAttributes: attributesOf(entries) };
}

function attributesOf(entries: ReadonlyMap<string, AttributeParts>): Record<string, SnsAttributeValue> | undefined {
  if (entries.size === 0) return undefined;
  const attributes: Record<string, SnsAttributeValue> = {};
  for (const { Name, ...value } of entries.values()) attributes[Name ?? ''] = value;
  return attributes;
}

function optional(form: URLSearchParams, name: string): string | undefined {
  return form.get(name) ?? undefined;
}
