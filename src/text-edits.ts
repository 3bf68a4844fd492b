/** A replacement of `text[start, end)` by `text`; `start === end` inserts. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The text with the edits made, in one pass (a body may take thousands). Edits are made in
 * order of their start, inserts at one place in the order given; one that overlaps an edit
 * already made is left out.
 */
export function applyEdits(source: string, edits: TextEdit[]): string {
  if (edits.length === 0) return source;
  const parts: string[] = [];
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    if (edit.start < at) continue;
    parts.push(source.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  parts.push(source.slice(at));
  return parts.join('');
}
