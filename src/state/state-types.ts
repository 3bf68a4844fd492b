/** The shape of `.cms-sync/state.json`. */

/** What cms-sync knows about one record it created or adopted. */
export interface StateRecord {
  id: number;
  /** The file the record came from, relative to the project directory. */
  file: string;
  owner: 'created' | 'adopted';
  /** Digest of each field as cms-sync last sent it (symbolic: media by content, category by slug). */
  source: Record<string, string>;
  /** Digest of each field as the CMS held it right after our last write: the baseline for drift. */
  remote: Record<string, string>;
  /** What the record was built from; when it is unchanged the file need not be rendered again. */
  input?: RecordInput;
  /** The CMS's change marker (e.g. `updated_at`) right after our last write. */
  marker?: string;
}

/** The inputs of a built record: file bytes, the config that shapes it, and its local images. */
export interface RecordInput {
  /** Digest of the file's sha256, the pipeline fingerprint and each local image's sha256. */
  hash: string;
  /** Local images the record embeds, relative to content/, in order. */
  media: string[];
  /** sha256 of the file's bytes: a file with the same bytes need not even be parsed. */
  fileSha?: string;
  /**
   * What the file names through relations, by front matter key (see RecordRef): a record taken
   * from state unrendered still orders and checks what it points at.
   */
  refs?: Record<string, { slugs: string[]; line: number }>;
  /**
   * The file's own front matter `id` (a site's stable id, never taken for a CMS id): a new file
   * that carries the id of a file that is gone is that record renamed (see detectRenames).
   */
  siteId?: string;
}

/** A file or URL that has been uploaded once, and its media id. */
export interface MediaEntry {
  id: number;
  /** Where it came from, for people reading the state: a content path or a URL. */
  source: string;
  /** The alt text and title the media record was given (absent: none was sent). */
  alt?: string;
  title?: string;
  /** The record whose use of the image gave them: the CMS keeps one alt per file (see media-text.ts). */
  textFrom?: string;
}

export interface State {
  version: 1;
  /** Random id given when the state is first made: a state from another project is refused. */
  lineage: string;
  /** Increases with every save: an older copy is refused. */
  serial: number;
  /** Which CMS the ids belong to ("local" for the embedded CMS, else its base URL without credentials). */
  target: string;
  /**
   * Keyed by `<resource>/<slug>`. A Map, not a plain object: a state read from its files reads its
   * record lines on first use (see RecordTable in state-lines.ts), so opening it costs no more for
   * more records.
   */
  records: Map<string, StateRecord>;
  /** Keyed by identity: `sha256:<hex>` for a local file, `url:<url>` for a remote one. */
  media: Record<string, MediaEntry>;
}

/** A state as plain data (see plainState): what a state.json of an earlier version held. */
export interface PlainState extends Omit<State, 'records'> {
  records: Record<string, StateRecord>;
}
