import type { Config } from '../../src/config/schema.js';
import { buildRecord } from '../../src/records/build-record.js';
import { isDocumentFailure, parseDocument } from '../../src/source/read-document.js';

/**
 * `content/categories/<name>.md` with this front matter (after `name:`), built as plan builds it:
 * categories have no body, so nothing is rendered and no media is resolved.
 */
export async function buildCategory(
  config: Config,
  frontMatter: string,
  options: { name?: string; lang?: string | undefined } = {},
): ReturnType<typeof buildRecord> {
  const name = options.name ?? 'sport';
  const file = `content/categories/${name}.md`;
  const title = options.name ?? 'Sport';
  const doc = parseDocument(Buffer.from(`---\nname: ${title}\n${frontMatter}\n---\n`), {
    file,
    absPath: `/p/${file}`,
    resource: 'category',
    lang: options.lang,
  });
  if (isDocumentFailure(doc)) throw new Error(`${file} did not parse`);
  const render = () => Promise.reject(new Error('not rendered'));
  const media = {
    resolve: async () => ({ ok: false as const, message: '' }),
    hashFile: async () => undefined,
  };
  return buildRecord(doc, { config, render, media });
}
