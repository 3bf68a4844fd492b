import { createHash } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { CONFIG_SCHEMA_VERSION, configSchema } from '../../src/config/schema.js';
import { validatedConfigs, type ValidatedConfigs } from '../../src/config/validated-configs.js';
import { zod } from '../../src/zod.js';

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
    expect(config.sync).toEqual({
      concurrency: 4,
      rps: 0,
      timeoutMs: 30_000,
      prune: false,
      maxDeletes: 20,
      retry: {},
      fullRefresh: { everyRuns: 100, everyDays: 7 },
    });
    expect(config.statusMap).toEqual({ draft: 0, published: 1 });
    expect(config.wire.pageSize).toBe(100);
    expect(config.resources.user.allowDelete).toBe(false);
    expect(config.resources.article.allowDelete).toBe(true);
    expect(config.resources.article.fields.body).toBe('body');
  });

  it('compiles sync.config.ts (TypeScript) and applies its mapping', async () => {
    await writeFile(
      path.join(dir, 'sync.config.ts'),
      `const size: 'large' = 'large';\nexport default { media: { defaultSize: size }, resources: { article: { ` +
        `fields: { body: 'html' }, passThrough: ['tags'] } }, statusMap: { published: 2 } };\n`,
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
    await expect(loadConfig(dir, {})).rejects.toThrow(
      'sync.config.ts is not valid:\n  sync.concurrency: Expected `sync.concurrency` to be an integer >= 1, got `0` ' +
        '(number)',
    );
  });

  it('names a misspelt option', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { sync: { prnue: true } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/sync: unknown option `prnue`/);
  });

  it('refuses a page size the API never serves', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { wire: { pageSize: 500 } };\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(
      /wire.pageSize: The API never serves more than 100 per page/,
    );
  });

  it('refuses a field mapping for a field cms-sync does not manage', async () => {
    await writeFile(
      path.join(dir, 'sync.config.ts'),
      `export default { resources: { page: { fields: { body: 'html' } } } };\n`,
    );
    await expect(loadConfig(dir, {})).rejects.toThrow(
      /resources.page.fields.body: `body` is not a field cms-sync manages for page; expected one of title, slug, status, content/,
    );
  });

  it('lets CMS_BASE_URL and CMS_MEDIA_BASE_URL override the file', async () => {
    await writeFile(
      path.join(dir, 'sync.config.ts'),
      `export default { target: { baseUrl: 'https://a.example' }, media: { publicBaseUrl: ` +
        `'https://cdn.example/content' } };\n`,
    );
    const fromFile = await loadConfig(dir, {});
    expect(fromFile.target.baseUrl).toBe('https://a.example');
    expect(fromFile.media.publicBaseUrl).toBe('https://cdn.example/content/');
    const fromEnv = await loadConfig(dir, {
      CMS_BASE_URL: 'https://b.example/',
      CMS_MEDIA_BASE_URL: 'https://raw.example/c/',
    });
    expect(fromEnv.target.baseUrl).toBe('https://b.example');
    expect(fromEnv.media.publicBaseUrl).toBe('https://raw.example/c/');
  });

  it('names the file when it does not even load', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default {{;\n`);
    await expect(loadConfig(dir, {})).rejects.toThrow(/^sync.config.ts could not be loaded/);
  });
});

describe('a config that does not load', () => {
  const write = (file: string, lines: string[]) => writeFile(path.join(dir, file), `${lines.join('\n')}\n`);
  const failure = async (options?: { loadTimeoutMs: number }) => {
    const error = await loadConfig(dir, {}, options).then(
      () => expect.unreachable('the config loaded'),
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'SyncError', code: 'CMS_SYNC_CONFIG' });
    return (error as Error).message;
  };

  it('imports `cms-sync` from a folder with no node_modules: the name is the running cms-sync', async () => {
    await write('sync.config.ts', [
      "import { defineConfig } from 'cms-sync';",
      'export default defineConfig({ sync: { rps: 3 } });',
    ]);
    expect((await loadConfig(dir, {})).sync.rps).toBe(3);
  });

  it('with a syntax error, says so at its line and column', async () => {
    await write('sync.config.ts', ['export default {', '  sync: { concurrency: 2 ,, },', '};']);
    expect(await failure()).toBe(
      'sync.config.ts could not be loaded: it has a syntax error.\n' +
        '  sync.config.ts:2:26: Unexpected token\n' +
        'Fix the syntax there.',
    );
  });

  it('importing a module that is not installed, names the module and the import', async () => {
    await write('sync.config.ts', [
      "import { defineConfig } from 'cms-sync';",
      "import extra from 'no-such-module';",
      'export default defineConfig({ sync: extra });',
    ]);
    expect(await failure()).toBe(
      `sync.config.ts could not be loaded: it imports \`no-such-module\`, which cannot be found from ${dir}.\n` +
        "  sync.config.ts:2:19: Cannot find module 'no-such-module'\n" +
        'Install it (npm install --save-dev no-such-module), or remove the import.',
    );
  });

  it('importing a file that imports a missing module, names both', async () => {
    await write('helper.ts', ["export { x } from './gone.js';"]);
    await write('sync.config.ts', [
      "import { x } from './helper.ts';",
      'export default { sync: { rps: x } };',
    ]);
    expect(await failure()).toBe(
      'sync.config.ts could not be loaded: helper.ts, which it imports, imports `./gone.js`, ' +
        `which cannot be found from ${dir}.\n` +
        "  helper.ts:1:19: Cannot find module './gone.js'\n" +
        'Check the path of that import.',
    );
  });

  it('that throws, gives what it threw and where', async () => {
    await write('sync.config.ts', [
      'const token: string | undefined = undefined;',
      "if (!token) throw new TypeError('no token for staging');",
      'export default {};',
    ]);
    expect(await failure()).toBe(
      'sync.config.ts could not be loaded: it threw an error while running.\n' +
        '  sync.config.ts:2:19: TypeError: no token for staging',
    );
  });

  it('that waits for a promise nothing settles, gives up after the timeout and says why', async () => {
    const never = 'new Promise(() => {})';
    for (const body of [`export default ${never};`, `await ${never};\nexport default {};`]) {
      await writeFile(path.join(dir, 'sync.config.ts'), `${body}\n`);
      expect(await failure({ loadTimeoutMs: 100 })).toBe(
        'sync.config.ts did not finish loading within 0.1 s: ' +
          'its default export, or something it awaits, is a promise that has not settled.\n' +
          'Make every promise the config waits for resolve or reject in time ' +
          '(or allow it longer with CMS_SYNC_CONFIG_TIMEOUT_MS).',
      );
    }
  });
});

describe('configs validated before', () => {
  const good = { media: { defaultSize: 'large' }, sync: { concurrency: 2 } };

  it('are remembered by content: the same config is known, a changed one is not', async () => {
    const validated = validatedConfigs(path.join(dir, 'memo'));
    expect(validated.has(good)).toBe(false);
    validated.remember(good);
    // Key order is not content.
    expect(validated.has({ sync: { concurrency: 2 }, media: { defaultSize: 'large' } })).toBe(true);
    expect(validated.has({ ...good, sync: { concurrency: 3 } })).toBe(false);
    // A function could change without its digest changing: never remembered.
    const withCode = { ...good, extra: () => 1 };
    validated.remember(withCode);
    expect(validated.has(withCode)).toBe(false);
  });

  it('are not trusted from a folder others can write to', async () => {
    const folder = path.join(dir, 'memo');
    const validated = validatedConfigs(folder);
    validated.remember(good);
    await chmod(folder, 0o777);
    expect(validated.has(good)).toBe(process.getuid === undefined);
  });

  it('skip validation only when known: an invalid config that was never remembered is refused', async () => {
    await writeFile(path.join(dir, 'sync.config.ts'), `export default { sync: { concurrency: 0 } };\n`);
    const never: ValidatedConfigs = {
      has: () => false,
      remember: () => expect.unreachable('an invalid config must not be remembered'),
    };
    await expect(loadConfig(dir, {}, { validated: never })).rejects.toThrow(/sync\.concurrency/);
    // What "known" means: this run takes the config as validated, without loading the schema.
    const always: ValidatedConfigs = { has: () => true, remember: () => {} };
    await expect(loadConfig(dir, {}, { validated: always })).resolves.toMatchObject({
      sync: { concurrency: 0 },
    });
  });

  it(
    'are remembered once valid, so the next run does not validate again; never by plan, which writes ' +
      'nothing',
    async () => {
      await writeFile(path.join(dir, 'sync.config.ts'), `export default ${JSON.stringify(good)};\n`);
      const validated = validatedConfigs(path.join(dir, 'memo'));
      await loadConfig(dir, {}, { validated, readOnly: true });
      expect(validated.has(good)).toBe(false);
      await loadConfig(dir, {}, { validated });
      expect(validated.has(good)).toBe(true);
    },
  );

  it('stay valid only while the schema is the same: change the schema, bump CONFIG_SCHEMA_VERSION', () => {
    // The schema's JSON Schema, digested. If this fails, the schema changed: bump
    // CONFIG_SCHEMA_VERSION in src/config/schema.ts (so remembered configs are checked again)
    // and put the new digest here.
    const shape = createHash('sha256')
      .update(JSON.stringify(zod().toJSONSchema(configSchema(), { unrepresentable: 'any' })))
      .digest('hex')
      .slice(0, 16);
    expect({ version: CONFIG_SCHEMA_VERSION, shape }).toEqual({ version: 5, shape: 'e16eda81646dea3d' });
  });

  it('come out of validation unchanged, so a remembered config can be used as it is', () => {
    const full = {
      contentDir: 'content',
      stateDir: '.state',
      target: { baseUrl: 'https://cms.example.com', tokenEnv: 'TOKEN' },
      media: { publicBaseUrl: 'https://media.example.com/', defaultSize: 'small' },
      sync: {
        concurrency: 2,
        rps: 5,
        timeoutMs: 1000,
        prune: true,
        maxDeletes: 3,
        retry: { maxAttempts: 2 },
      },
      statusMap: { draft: 5, published: 6 },
      resources: { article: { fields: { body: 'html' }, passThrough: ['tags'], allowDelete: false } },
      wire: {
        endpointPath: '/api',
        pageSize: 50,
        listKeys: ['rows'],
        idPaths: ['id'],
        mediaIdKeys: ['id'],
        idempotencyHeader: false,
        payloadKey: 'data',
        uploadUrlField: 'url',
        changeMarker: false,
      },
    };
    expect(configSchema().parse(full)).toEqual(full);
  });
});
