const utf8 = new TextDecoder('utf-8', { fatal: true });

export type DecodeResult =
  { ok: true; text: string } | { ok: false; line: number; column: number; message: string };

/**
 * Decodes a Markdown file: UTF-8 only (a Latin-1 file would otherwise turn into mojibake in
 * the CMS without anyone noticing), BOM dropped, CRLF and lone CR turned into LF so that
 * lines, hashes of the body and rendered HTML do not depend on the editor's line endings.
 */
export function decodeText(bytes: Uint8Array): DecodeResult {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return invalidUtf8(bytes);
  }
  return { ok: true, text: text.replace(/\r\n?/g, '\n') };
}

function invalidUtf8(bytes: Uint8Array): DecodeResult {
  // Binary search for the longest valid prefix; `stream: true` tolerates a prefix that ends
  // inside a multi-byte character, so a failure means a real invalid byte before the cut.
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const mid = (good + bad) >>> 1;
    if (isValidPrefix(bytes.subarray(0, mid))) good = mid;
    else bad = mid;
  }
  // Position of the first character that does not decode: everything before it is whole characters.
  const before = new TextDecoder('utf-8').decode(bytes.subarray(0, good), { stream: true });
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const byte = bytes[bom + new TextEncoder().encode(before).length] ?? 0;
  const lines = before.replace(/\r\n?/g, '\n').split('\n');
  return {
    ok: false,
    line: lines.length,
    column: (lines[lines.length - 1] ?? '').length + 1,
    message:
      `file is not valid UTF-8 (byte 0x${byte.toString(16).toUpperCase().padStart(2, '0')} here is not part ` +
      `of a UTF-8 character); save the file with UTF-8 encoding`,
  };
}

function isValidPrefix(prefix: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(prefix, { stream: true });
    return true;
  } catch {
    return false;
  }
}
