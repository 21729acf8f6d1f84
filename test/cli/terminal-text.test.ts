/** What a terminal would act on is shown as an escape; everything else is left as it is. */
import { printable, printableLines } from '../../cli/terminal-text';

test.each([
  ['OSC 52, which writes the clipboard', '\u001b]52;c;aGk=\u0007', '\\x1b]52;c;aGk=\\x07'],
  ['a cursor move and a screen clear', 'a\u001b[2J\u001b[1;1Hb', 'a\\x1b[2J\\x1b[1;1Hb'],
  ['a C1 CSI and a C1 OSC', '\u009b2J\u009d0;title\u009c', '\\x9b2J\\x9d0;title\\x9c'],
  ['DEL and NUL', 'a\u007fb\u0000', 'a\\x7fb\\x00'],
  ['a line break, a carriage return and a tab', 'one\ntwo\rthree\tfour', 'one\\ntwo\\rthree\\tfour'],
  ['the bidi override that reverses a line', 'invoice\u202etxt.exe', 'invoice\\u202etxt.exe'],
  ['each bidi embedding, override and isolate', '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069', '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069'],
])('escapes %s', (_name, text, shown) => {
  expect(printable(text)).toBe(shown);
});

test('leaves printable text alone, backslashes, accents, CJK and emoji included, so a second pass changes nothing', () => {
  const text = 'café 東京 🚀 C:\\path \\x1b';
  expect(printable(text)).toBe(text);
  expect(printable(printable('\u001b]52;c;aGk=\u0007'))).toBe('\\x1b]52;c;aGk=\\x07');
});

test('printableLines keeps the line breaks and escapes the rest', () => {
  expect(printableLines('one\u001b[A\ntwo\r')).toBe('one\\x1b[A\ntwo\\r');
});
