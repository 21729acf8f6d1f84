/**
 * Where a text breaks SQS's character rule, for messages that name the character as SQS does
 * (`'#x7'`). The rule itself is the runtime's: `isSqsText` from aws/sqs-text.ts.
 */
import { isSqsText } from '../../aws/sqs-text';

/** The allowed set as SQS's own messages spell it. */
export const SQS_ALLOWED_CHARACTERS = '#x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF';

/** The first code point SQS refuses in `text`, as `#xHH`, or undefined when SQS accepts every one. */
export function firstRefusedCharacter(text: string): string | undefined {
  if (isSqsText(text)) return undefined;
  for (const char of text) {
    if (!isSqsText(char)) return `#x${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()}`;
  }
  return undefined;
}
