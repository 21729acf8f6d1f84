/** Escaping for the two places the report puts text: HTML markup and a JSON script element. */

const HTML_ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `text` as HTML text or an attribute value (quoted with `"`): `&`, `<`, `>` and quotes as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ENTITIES[character] ?? character);
}

/**
 * `value` as JSON that can sit inside a `<script>` element: every `<` as `\u003c`, so no string
 * can close the element (`</script>`) or open a comment (`<!--`), and the line and paragraph
 * separators escaped as well. `JSON.parse` reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
