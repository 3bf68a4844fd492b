import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SyncError } from '../errors.js';

/** Where the API token comes from: a file (not in `ps`, nor in every child's environment), else the environment. */
export interface TokenSources {
  env: NodeJS.ProcessEnv;
  /** The environment variable that holds the token (config `target.tokenEnv`, CMS_API_TOKEN by default). */
  tokenEnv: string;
  /** --token-file, relative to `cwd`; else env `<tokenEnv>_FILE`. */
  tokenFile?: string | undefined;
  cwd: string;
}

/**
 * The API token, checked, or undefined when none is given. A file's one trailing line break is
 * not part of the token (editors add one); anything else around it, or inside it, is refused
 * with a message rather than sent: a header with a line break cannot be sent at all, and a
 * token with a stray space is a different token.
 */
export async function readToken(sources: TokenSources): Promise<string | undefined> {
  const fileVar = `${sources.tokenEnv}_FILE`;
  const file = sources.tokenFile ?? nonEmpty(sources.env[fileVar]);
  if (file) {
    const where = path.resolve(sources.cwd, file);
    const what = sources.tokenFile
      ? `The token file ${file} (--token-file)`
      : `The token file ${file} (${fileVar})`;
    let text: string;
    try {
      text = await readFile(where, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      throw new SyncError('CMS_SYNC_CONFIG', `${what} could not be read (${code}): check the path.`, {
        cause: error,
      });
    }
    return checkToken(text.replace(/\r?\n$/, ''), what);
  }
  const value = sources.env[sources.tokenEnv];
  if (value === undefined || value === '') return undefined;
  return checkToken(value, `The environment variable ${sources.tokenEnv}`);
}

/** The token as given, or a SyncError that says what is wrong with it (never showing it). */
export function checkToken(token: string, what: string): string {
  if (token.trim() === '') {
    throw new SyncError(
      'CMS_SYNC_CONFIG',
      `${what} is empty: put the token from the CMS dashboard (settings, API) in it.`,
    );
  }
  if (token.trim() !== token) {
    const message = `${what} has spaces or line breaks before or after the token: remove them (a token has none).`;
    throw new SyncError('CMS_SYNC_CONFIG', message);
  }
  // Header values cannot carry control characters; undici would refuse the request.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(token)) {
    const message =
      `${what} contains a line break or another control character, which cannot be sent in an HTTP ` +
      `header`;
    throw new SyncError('CMS_SYNC_CONFIG', `${message}: copy the token again, as one line.`);
  }
  return token;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
