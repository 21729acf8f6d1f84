/**
 * SQS's rules for text. A message body and a String attribute value may hold only some code
 * points, and SQS refuses the whole SendMessage (HTTP 400) for one outside them; the emulators
 * used in local mode accept them, so the runtime has to keep to the rules itself.
 */

/**
 * The code points SQS accepts in a message body and in a String or Number attribute value, as
 * inclusive `[first, last]` ranges: `#x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD |
 * #x10000-#x10FFFF`, the `Char` production of XML 1.0 (SQS API Reference, SendMessage,
 * `MessageBody`). Outside them: the C0 controls but tab, LF and CR; the surrogates U+D800..U+DFFF,
 * which a JavaScript string can hold alone; and the noncharacters U+FFFE and U+FFFF.
 */
export const SQS_TEXT_RANGES = [
  [0x9, 0x9],
  [0xa, 0xa],
  [0xd, 0xd],
  [0x20, 0xd7ff],
  [0xe000, 0xfffd],
  [0x10000, 0x10ffff],
] as const;

/** What {@link toSqsText} puts in place of a code point SQS refuses: U+FFFD, the replacement character. */
export const REPLACEMENT_CHARACTER = '\uFFFD';

// One code point outside the ranges. The `u` flag makes a valid surrogate pair one (allowed)
// astral code point and a lone surrogate a code point of its own, which the class matches.
const OUTSIDE_SOURCE = `[^${SQS_TEXT_RANGES.map(([first, last]) => `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`).join('')}]`;
const OUTSIDE_ONE = new RegExp(OUTSIDE_SOURCE, 'u');
const OUTSIDE_ALL = new RegExp(OUTSIDE_SOURCE, 'gu');

/**
 * True when every code point of `text` is one SQS accepts ({@link SQS_TEXT_RANGES}). Checks the
 * characters only: SQS also refuses an empty body or attribute value.
 */
export function isSqsText(text: string): boolean {
  return !OUTSIDE_ONE.test(text);
}

/**
 * `text` with each code point SQS refuses, lone surrogates included, replaced by U+FFFD; valid
 * surrogate pairs are kept. For text that only has to be readable (an attribute value): the
 * replacement loses the character, so text that must survive exactly goes through
 * {@link escapeJsonForSqs} instead.
 *
 * @example toSqsText('a\u0000b') // 'a\uFFFDb'
 */
export function toSqsText(text: string): string {
  return text.replace(OUTSIDE_ALL, REPLACEMENT_CHARACTER);
}

/**
 * The longest prefix of `text` that is at most `maxBytes` bytes in UTF-8, cut between code points
 * (never inside a surrogate pair), so the cut never creates a lone surrogate. SQS counts
 * attribute values in UTF-8 bytes, not in UTF-16 code units as `String.prototype.slice` does.
 *
 * @throws RangeError when `maxBytes` is not an integer >= 0.
 * @example truncateUtf8('aé😀', 4) // 'aé' (1 + 2 bytes; the emoji's 4 would pass 4)
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (!Number.isInteger(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be an integer >= 0 (given ${maxBytes})`);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += utf8Length(char.codePointAt(0) ?? 0);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** Bytes of one code point in UTF-8; a lone surrogate counts 3, as Node encodes it (U+FFFD). */
function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  return codePoint < 0x10000 ? 3 : 4;
}

/**
 * A JSON text that SQS accepts and that parses to the same value: each code point SQS refuses
 * becomes a `\uXXXX` escape. `JSON.stringify` already escapes the C0 controls and lone
 * surrogates, but writes U+FFFE and U+FFFF raw; JSON from elsewhere may hold lone surrogates raw.
 *
 * Only for valid JSON: there such code points can stand only inside string literals (outside
 * them JSON allows ASCII alone), where the escape means the same character. On other text the
 * escapes would change it.
 *
 * @example escapeJsonForSqs(JSON.stringify({ a: '\uFFFF' })) // '{"a":"\\uFFFF"}'
 */
export function escapeJsonForSqs(json: string): string {
  // Every refused code point is below U+10000, so one UTF-16 unit and one escape each.
  return json.replace(OUTSIDE_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}
