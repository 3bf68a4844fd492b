import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cms-sync-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('works with no config file at all, with the defaults of the contract', async () => {
    const config = await loadConfig(dir, {});
    expect(config.configFile).toBeUndefined();
    expect(config.contentDir).toBe(path.join(dir, 'content'));
    expect(config.stateDir).toBe(path.join(dir, '.cms-sync'));
    expect(config.target.baseUrl).toBeUndefined();
    expect(config.media.defaultSize).toBe('medium');
    expect(config.sync).toEqual({ concurrency: 4, rps: 0, timeoutMs: 30_000, prune: false, maxDeletes: 20, retry: {} });
    expect(config.statusMap).toEqual({ draft: 0, published: 1 });
    expect(config.wire.pageSize).toBe(100);
    expect(config.resources.user.allowDelete).toBe(false);
    expect(config.resources.article.allowDelete).toBe(true);
    expect(config.resources.article.fields.body).toBe('body');
  });

  it('compiles sync.config.ts (TypeScript) and applies its mapping', async () => {
    await writeFile(
      path.join(dir, 'sync.config.ts'),
      `const size: 'large' = 'large';\nexport default { media: { defaultSize: size }, resources: { article: { fields: { body: 'html' }, passThrough: ['tags'] } }, statusMap: { published: 2 } };\n`,
    );
    const config = await loadConfig(dir, {});
    expect(config.configFile).toBe(path.join(dir, 'sync.config.ts'));
    expect(config.media.defaultSize).toBe('large');
    expect(config.resources.article.fields.body).toBe('html');
    expect(config.resources.article.fields.title).toBe('title');
    expect(config.resources.article.passThrough).toEqual(['tags']);
    expect(config.statusMap).toEqual({ draft: 0, published: 2 });
  });

  it('names the file and the key of a bad value, and says what was expected', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { sync: { concurrency: 0 } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow('sync.config.ts is not valid:\n  sync.concurrency: Expected `sync.concurrency` to be an integer >= 1, got `0` (number)');
  });

  it('names a misspelt option', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { sync: { prnue: true } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/sync: unknown option `prnue`/);
  });

  it('refuses a page size the API never serves', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { wire: { pageSize: 500 } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/wire.pageSize: The API never serves more than 100 per page/);
  });

  it('refuses a field mapping for a field cms-sync does not manage', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { resources: { page: { fields: { body: 'html' } } } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/resources.page.fields.body: `body` is not a field cms-sync manages for page; expected one of title, slug, content/);
  });

  it('lets CMS_BASE_URL and CMS_MEDIA_BASE_URL override the file', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { target: { baseUrl: 'https://a.example' }, media: { publicBaseUrl: 'https://cdn.example/content' } };\n`);
    const fromFile = await loadConfig(dir, {});
    expect(fromFile.target.baseUrl).toBe('https://a.example');
    expect(fromFile.media.publicBaseUrl).toBe('https://cdn.example/content/');
    const fromEnv = await loadConfig(dir, { CMS_BASE_URL: 'https://b.example/', CMS_MEDIA_BASE_URL: 'https://raw.example/c/' });
    expect(fromEnv.target.baseUrl).toBe('https://b.example');
    expect(fromEnv.media.publicBaseUrl).toBe('https://raw.example/c/');
  });

  it('names the file when it does not even load', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default {{;\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/^sync.config.ts could not be loaded/);
  });
});
