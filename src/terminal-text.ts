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
  return line.replace(CONTROL_OR_COLOUR, (found) =>
    found.length > 1 ? found : `^${String.fromCharCode(found.charCodeAt(0) ^ 0x40)}`,
  );
}

/** Writes one line of text output (see terminalText): the CLI's commands and the watch's passes. */
export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(terminalText(line) + '\n');
}

/** C0 controls but tab and line feed, and DEL. */
const CONTROLS = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f]';
const CONTROL = new RegExp(CONTROLS);

/**
 * The SGR parameters of the colours picocolors writes for what the CLI uses (bold, dim, red,
 * green, yellow, cyan and their resets): none hides text or sets a background.
 */
const COLOURS = '(?:0|1|2|22|31|32|33|36|39)';

/** One of our colour sequences (kept), or one control character (made visible). */
const CONTROL_OR_COLOUR = new RegExp(`\\u001b\\[${COLOURS}m|${CONTROLS}`, 'g');
