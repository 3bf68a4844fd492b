import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/load-config.js';
import { buildCategory } from '../helpers/build-category.js';

/** A category file with this front matter, built as plan builds it. */
function build(frontMatter: string, passThrough: boolean | string[]) {
  const config = resolveConfig({ resources: { category: { passThrough } } }, { projectDir: '/p', env: {} });
  return buildCategory(config, frontMatter);
}

describe('front matter keys the CMS sets itself (id, updated_at)', () => {
  it('passThrough: true sends the other keys but never the old site id, which stays the file id', async () => {
    const { record, problems } = await build('id: 42\ncolor: red', true);
    expect(record?.values).toMatchObject({ color: 'red' });
    expect(record?.values).not.toHaveProperty('id');
    expect(record?.siteId).toEqual({ value: '42', line: 3 });
    expect(problems).toEqual([]);
  });

  it('a passThrough list naming id or updated_at sends neither and says what to do, at the key', async () => {
    const { record, problems } = await build('id: 42\nupdated_at: 2024-01-01', ['id', 'updated_at']);
    expect(record?.values).not.toHaveProperty('id');
    expect(record?.values).not.toHaveProperty('updated_at');
    expect(record?.siteId?.value).toBe('42');
    expect(problems.map((p) => [p.line, p.severity, p.message])).toEqual([
      [
        3,
        'warning',
        'front matter `id` is not sent to the CMS, which sets `id` itself: remove `id` from ' +
          "resources.category.passThrough in sync.config.ts (it stays the file's own id), or rename the key " +
          'to send it as a field',
      ],
      [
        4,
        'warning',
        'front matter `updated_at` is not sent to the CMS, which sets `updated_at` itself: remove `updated_at` ' +
          'from resources.category.passThrough in sync.config.ts',
      ],
    ]);
  });
});
