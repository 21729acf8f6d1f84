/**
 * Text that came from outside (a DLQ message's body, its error, its attributes: whatever a producer
 * or a consumer's code wrote) made safe to print on a terminal. A terminal acts on control
 * characters rather than showing them: `ESC ] 52` writes the clipboard, other sequences move the
 * cursor, rewrite lines or retitle the window, and the bidirectional overrides reorder what is
 * shown. Human output passes such text through {@link printable}; `--json` keeps it exact.
 */

/** C0 controls (newline and tab included), DEL, C1 controls, the bidi embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is this pattern's purpose
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The escapes a reader knows by name. */
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every character that a terminal would act on written out as an escape: `\x1b`,
 * `\x9b`, `\n`, `\u202e`. Everything else, backslashes included, is left as it is, so a text
 * passed twice reads the same. Apply it to one line's worth of text: a caller that lays text out
 * on several lines splits it first.
 *
 * @example
 * printable('\u001b]52;c;aGk=\u0007'); // '\\x1b]52;c;aGk=\\x07'
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => NAMED[char] ?? escapeOf(char.charCodeAt(0)));
}

/** Each line of `text` made {@link printable}; the line breaks stay. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}

function escapeOf(code: number): string {
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
