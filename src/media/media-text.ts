import { byCodeUnit } from '../compare.js';
import type { FileProblem } from '../errors.js';
import type { DesiredRecord } from '../records/build-record.js';
import type { MediaEntry, State } from '../state/state-file.js';
import type { ImageText } from './resolve-images.js';
import type { MediaSource } from './resolve-media.js';

/**
 * The alt text and title a media record should hold, and the record whose use of the image
 * gave them.
 *
 * The CMS keeps one alt and one title per media file, and its media block has no room for
 * another, while one file is uploaded once however many records use it. So when records use
 * one file with different alts, one of them speaks for the file: the record that gave the
 * media record its text keeps doing so while it uses the file (an edit of its alt edits the
 * media record); when it stops using the file (or is gone), the first record by key that uses
 * it takes over. The others get a warning at the image.
 */
export interface MediaText {
  alt: string;
  title?: string;
  /** Key of the record that gave it. */
  from: string;
}

/** A media record whose alt or title changes (an `edit` of the media record), or only whose speaker does. */
export interface MediaEdit {
  identity: string;
  id: number;
  /** Where it came from, as in state. */
  source: string;
  text: MediaText;
  /** false: the CMS already holds this text, only state learns who gave it. */
  send: boolean;
}

interface Use extends ImageText {
  key: string;
  file: string;
  src: string;
}

/**
 * Pure: what alt and title each image of the records to be written gives its media record. An
 * upload carries them (`upload`); a media record that exists already is edited (`edits`).
 * Records that are not written this run (unchanged, drift, skipped) keep what they gave.
 */
export function planMediaText(input: {
  /** Records to be written (created, updated or adopted), in key order. */
  written: readonly DesiredRecord[];
  /** Keys of every record still there (written or not): a speaker among them that is not written is left as it is. */
  present: { has(key: string): boolean };
  state: State;
  /** Media ids known for identities state does not hold (the library, or uploads of this run). */
  idOf: (identity: string) => number | undefined;
  /** Identities uploaded by this plan. */
  uploading: ReadonlySet<string>;
  /** The text the CMS holds for an image state does not know (found in its library). */
  heldText?: (identity: string) => Pick<MediaEntry, 'alt' | 'title'> | undefined;
}): { upload: Map<string, MediaText>; edits: MediaEdit[]; problems: FileProblem[] } {
  const uses = new Map<string, Use[]>();
  const writtenKeys = new Set(input.written.map((r) => r.key));
  for (const record of [...input.written].sort((a, b) => byCodeUnit(a.key, b.key))) {
    const html = record.html;
    if (!html?.text) continue;
    html.media.forEach((source, i) => {
      const text = html.text?.[i];
      if (source.kind === 'existing' || !text) return;
      const list = uses.get(source.identity) ?? [];
      list.push({ ...text, key: record.key, file: record.file, src: describe(source) });
      uses.set(source.identity, list);
    });
  }
  const upload = new Map<string, MediaText>();
  const edits: MediaEdit[] = [];
  const problems: FileProblem[] = [];
  for (const [identity, list] of [...uses].sort(([a], [b]) => byCodeUnit(a, b))) {
    const stored: MediaEntry | undefined = input.state.media[identity];
    const speaker = stored?.textFrom;
    const own = speaker === undefined ? undefined : list.find((u) => u.key === speaker);
    // The speaker is there but not written this run: what it gave stands.
    if (!own && speaker !== undefined && input.present.has(speaker) && !writtenKeys.has(speaker)) {
      warnOthers(list, stored!, problems);
      continue;
    }
    const chosen = own ?? list[0]!;
    const text: MediaText = {
      alt: chosen.alt,
      ...(chosen.title === undefined ? {} : { title: chosen.title }),
      from: chosen.key,
    };
    warnOthers(
      list,
      { alt: text.alt, ...(text.title === undefined ? {} : { title: text.title }), textFrom: text.from },
      problems,
    );
    if (input.uploading.has(identity)) {
      upload.set(identity, text);
      continue;
    }
    const id = stored?.id ?? input.idOf(identity);
    if (id === undefined) continue;
    const same = sameText(stored ?? input.heldText?.(identity), text);
    if (same && stored?.textFrom === text.from) continue;
    edits.push({ identity, id, source: stored?.source ?? list[0]!.src, text, send: !same });
  }
  return { upload, edits, problems };
}

/** Whether the media record holds this text already (nothing sent and an empty text are alike). */
export function sameText(
  held: Pick<MediaEntry, 'alt' | 'title'> | undefined,
  text: Omit<MediaText, 'from'>,
): boolean {
  return (held?.alt ?? '') === text.alt && (held?.title ?? '') === (text.title ?? '');
}

function warnOthers(
  list: Use[],
  held: Pick<MediaEntry, 'alt' | 'title' | 'textFrom'>,
  problems: FileProblem[],
): void {
  for (const use of list) {
    // Only a different alt is told: it is what a reader who cannot see the image gets. A use without an alt
    // loses nothing, and a title follows the record that speaks for the file.
    if (use.key === held.textFrom || use.alt === '' || use.alt === (held.alt ?? '')) continue;
    problems.push({
      file: use.file,
      line: use.line,
      column: use.column,
      severity: 'warning',
      message:
        `image \`${use.src}\` has alt ${JSON.stringify(use.alt)} here, but the CMS keeps one alt per file and its ` +
        `media record has ${JSON.stringify(held.alt ?? '')} (from ${held.textFrom ?? 'an earlier upload'}): give ` +
        'every use of the file the same alt and title, or use a copy of the file',
    });
  }
}

function describe(source: MediaSource): string {
  return source.kind === 'file' ? source.file : source.kind === 'url' ? source.url : `cms-media:${source.id}`;
}
