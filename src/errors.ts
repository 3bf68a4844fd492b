/**
 * Run-level failures are thrown as a `SyncError` with a stable `code` (undici's `UND_ERR_*`
 * codes are the model). Per-file problems are not thrown: they are `FileProblem`s attached to
 * the file, and the run goes on.
 *
 * Messages say what happened, why, and what to do. They never contain the API token.
 */
export type ErrorCode =
  | 'CMS_SYNC_CONFIG'
  | 'CMS_SYNC_INPUT'
  | 'CMS_SYNC_AUTH'
  | 'CMS_SYNC_API_DISABLED'
  | 'CMS_SYNC_RETRYABLE'
  | 'CMS_SYNC_AMBIGUOUS'
  | 'CMS_SYNC_REJECTED'
  | 'CMS_SYNC_RETRY_BUDGET'
  | 'CMS_SYNC_PROTOCOL'
  | 'CMS_SYNC_STATE'
  | 'CMS_SYNC_LOCKED'
  | 'CMS_SYNC_SAFETY'
  | 'CMS_SYNC_MEDIA'
  | 'CMS_SYNC_SERVER'
  | 'CMS_SYNC_INTERRUPTED';

export class SyncError extends Error {
  readonly code: ErrorCode;
  /** Process exit code this error maps to: 1 error, 3 safety limit, 130 interrupted. */
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SyncError';
    this.code = code;
    this.exitCode = options.exitCode ?? 1;
  }
}

/** A problem that belongs to one file: reported as `path:line:column: message`. */
export interface FileProblem {
  /** Path relative to the project directory, with forward slashes. */
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

export function formatProblem(p: FileProblem): string {
  // A file name may hold a line break, and what follows it would start a line of its own: in a
  // CI log, `::error …` or `::add-mask::` there is a command to the runner. Shown as `^J`, as the
  // terminal shows other control characters.
  const file = p.file.replace(/[\r\n]/g, (c) => (c === '\n' ? '^J' : '^M'));
  return `${file}:${p.line}:${p.column}: ${p.severity === 'warning' ? 'warning: ' : ''}${p.message}`;
}

/** Removes every occurrence of a secret from a text, for any message that may quote input. */
export function redact(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join('[redacted]');
}

/**
 * A URL without its user and password, for what is stored (state's target) and compared. A
 * string that is not a URL is returned as it is.
 */
export function withoutCredentials(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return url;
  parsed.username = '';
  parsed.password = '';
  // URL adds a '/' to a bare origin; the caller's form is kept otherwise.
  return url.endsWith('/') || parsed.pathname !== '/' ? parsed.href : parsed.href.slice(0, -1);
}

/**
 * Hides the user and password of every URL in a text (`https://***@cms.example.com`), for any
 * output or message that may quote a URL: CMS_BASE_URL may carry credentials.
 */
export function redactCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z\d+.-]*:\/\/)[^\s/?#]*@/gi, '$1***@');
}
