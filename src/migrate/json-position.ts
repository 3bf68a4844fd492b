/**
 * Where JSON text first goes wrong, as 1-based line and column. Node 20's JSON.parse does not
 * always say (`Unexpected token '}', ... is not valid JSON`), so on failure the text is walked
 * once more by this small scanner, which only has to find the offset.
 */
export function jsonErrorPosition(text: string): { line: number; column: number; message: string } {
  let i = 0;
  const fail = (message: string): never => {
    throw new PositionedError(i, message);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(unexpected(text[i]));
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail('control character in a string');
      i++;
    }
    if (i >= text.length) fail('string is never closed');
    i++;
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail(unexpected(text[i]));
    i += m![0].length;
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') return void i++;
      for (;;) {
        space();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${describe(text[i])}`);
        string();
        space();
        if (text[i] !== ':') fail(`expected ':' after a property name, found ${describe(text[i])}`);
        i++;
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail(`expected ',' or '}' after a property value, found ${describe(text[i])}`);
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        space();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail(`expected ',' or ']' after an array element, found ${describe(text[i])}`);
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    return number();
  };
  let offset = text.length;
  let message = 'invalid JSON';
  try {
    value();
    space();
    if (i < text.length) fail(`unexpected ${describe(text[i])} after the end of the JSON value`);
  } catch (error) {
    if (!(error instanceof PositionedError)) throw error;
    offset = error.offset;
    message = error.message;
  }
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n'), message };
}

class PositionedError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** A download cut short is the usual broken export: say so rather than "unexpected end". */
function unexpected(c: string | undefined): string {
  return c === undefined ? 'the file ends inside a value (was it cut short?)' : `unexpected ${describe(c)}`;
}

function describe(c: string | undefined): string {
  return c === undefined ? 'the end of the file' : `'${c}'`;
}
