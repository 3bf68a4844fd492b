/**
 * A line of the CLI's text output with every control character the run's input may have put in
 * it made visible, as `cat -v` shows them (`^[`, `^M`, `^H`): a file name, a title or a message
 * quoting a file can hold escape sequences that clear the screen, move the cursor, set the
 * window's title or hide text, and a carriage return or backspace that writes over what was
 * printed: a plan whose deletes are hidden, a prompt that says something else. Tabs and line
 * breaks stay, and so do the colours cms-sync itself prints (see COLOURS), but only those: an
 * escape sequence from a file can colour a line, never hide or move one. JSON escapes every such
 * character, so a JSON line is left as it is.
 */
export function terminalText(line: string): string {
  if (!CONTROL.test(line)) return line;
  return line.replace(CONTROL_OR_COLOUR, shown);
}

function shown(found: string): string {
  if (found.length > 1) return found;
  const code = found.charCodeAt(0);
  if (code < 0x80) return `^${String.fromCharCode(code ^ 0x40)}`;
  // C1: cat -v's `M-` then the C0 control it is with the high bit set (U+009B, CSI, is `M-^[`).
  if (code <= 0x9f) return `M-^${String.fromCharCode((code - 0x80) ^ 0x40)}`;
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

/** Writes one line of text output (see terminalText): the CLI's commands and the watch's passes. */
export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(terminalText(line) + '\n');
}

/**
 * C0 controls but tab and line feed, DEL, C1 controls (U+009B is an escape sequence's start to
 * a terminal that reads 8-bit controls), and the bidirectional controls, which reorder what
 * follows them on the line (a title that shows `delete` where it says `keep`).
 */
const CONTROLS =
  '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';
const CONTROL = new RegExp(CONTROLS);

/**
 * The SGR parameters of the colours picocolors writes for what the CLI uses (bold, dim, red,
 * green, yellow, cyan and their resets): none hides text or sets a background.
 */
const COLOURS = '(?:0|1|2|22|31|32|33|36|39)';

/** One of our colour sequences (kept), or one control character (made visible). */
const CONTROL_OR_COLOUR = new RegExp(`\\u001b\\[${COLOURS}m|${CONTROLS}`, 'g');
