import { describe, expect, it } from 'vitest';
import { configOptions, configReference, readmeReference } from '../../scripts/config-reference.mjs';

describe('the README configuration reference', () => {
  it('is the one generated from define-config.ts (run `npm run docs:config` after changing an option)', () => {
    const inReadme = readmeReference();
    expect(
      inReadme,
      'README.md has lost its config-reference markers: restore them in "Configuration" and run `npm run docs:config`',
    ).toBeDefined();
    expect(
      inReadme,
      'README.md "Configuration" is out of date with src/config/define-config.ts: run `npm run docs:config`',
    ).toBe(configReference());
  });

  it('lists every option of the schema, with its type, default and description', () => {
    const rows = configOptions();
    const keys = rows.map((r) => r.key);
    for (const key of [
      'contentDir',
      'target.baseUrl',
      'media.publicBaseUrl',
      'media.defaultSize',
      'sync.maxDeletes',
      'statusMap',
      'resources.<resource>.passThrough',
      'wire.idempotencyHeader',
    ])
      expect(keys).toContain(key);
    expect(rows.find((r) => r.key === 'media.defaultSize')).toMatchObject({
      type: "'small' | 'medium' | 'large'",
      default: "'medium'",
    });
    expect(rows.find((r) => r.key === 'sync.maxDeletes')).toMatchObject({
      type: 'number',
      default: '20',
      description: expect.stringContaining('aborts'),
    });
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
  });

  it('notices an option whose documentation changed', () => {
    const changed =
      `export interface UserConfig {\n  /**\n   * Where the Markdown lives.\n   * @default 'posts'\n   ` +
      `*/\n  contentDir?: string;\n}\n`;
    expect(configReference(configOptions(changed))).toContain(
      "| `contentDir` | `string` | `'posts'` | Where the Markdown lives. |",
    );
    expect(configReference(configOptions(changed))).not.toBe(readmeReference());
  });
});
