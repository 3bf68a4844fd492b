import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detach } from '../../src/migrate/detach.js';
import { splitXmlItems, type XmlItem } from '../../src/migrate/xml-items.js';
import { projectWith, runInProcess } from './helpers.js';

/** `text` in pieces of `size` characters. */
function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

async function split(
  chunks: Iterable<string>,
  options = {},
): Promise<{ items: XmlItem[]; skeleton: string }> {
  const scan = { skeleton: '' };
  const items: XmlItem[] = [];
  for await (const item of splitXmlItems(chunks, scan, { name: 'x.xml', ...options })) items.push(item);
  return { items, skeleton: scan.skeleton };
}

describe('splitXmlItems', () => {
  it('yields each item as soon as its </item> has arrived, while the rest of the file is still unread', async () => {
    const count = 200;
    let pulled = 0;
    /** The export as a stream of chunks, each holding one item and the start of the next. */
    async function* stream(): AsyncGenerator<string> {
      pulled++;
      yield '<rss><channel><title>Site</title>\n<item><title>Post 1</title>';
      for (let i = 1; i <= count; i++) {
        pulled++;
        yield i < count ? `</item>\n<item><title>Post ${i + 1}</title>` : '</item>\n</channel></rss>\n';
      }
    }
    const scan = { skeleton: '' };
    let seen = 0;
    for await (const item of splitXmlItems(stream(), scan)) {
      seen++;
      expect(item).toEqual({ text: `<item><title>Post ${seen}</title></item>`, line: seen + 1, column: 1 });
      // The chunk that closed this item was the last one read: nothing further ahead is held.
      expect(pulled).toBe(seen + 1);
    }
    expect(seen).toBe(count);
    expect(scan.skeleton).toBe(`<rss><channel><title>Site</title>\n${'\n'.repeat(count)}</channel></rss>\n`);
  });

  it('keeps CDATA and comments that hold </item> inside their item, wherever the chunks are cut', async () => {
    const xml =
      '<rss><channel>\n<item><content:encoded><![CDATA[<p>a</item> b]]></content:encoded>\n' +
      '<!-- </item> --><title>T</title></item>\n<item><title>U</title></item>\n</channel></rss>\n';
    for (let size = 1; size <= xml.length; size++) {
      const { items } = await split(pieces(xml, size));
      expect(items.map((item) => [item.text, item.line, item.column])).toEqual([
        [
          '<item><content:encoded><![CDATA[<p>a</item> b]]></content:encoded>\n<!-- </item> --><title>T</title></item>',
          2,
          1,
        ],
        ['<item><title>U</title></item>', 4, 1],
      ]);
    }
  });

  it('reports a file that ends inside an item at the start of that item', async () => {
    const xml = '<rss><channel>\n<item><title>A</title></item>\n  <item><title>B</title><content:encoded>';
    await expect(split(pieces(xml, 7))).rejects.toThrow(
      'x.xml:3:3: this <item> has no </item>: the export ends inside it (cut short in a download or copy?); ' +
        'export it again from WordPress (nothing was written)',
    );
  });

  it('stops at an item, or a CDATA section, longer than the cap instead of holding the rest of the file', async () => {
    const long = `<rss><channel>\n<item><title>${'x'.repeat(500)}`;
    await expect(split(pieces(long, 50), { maxItemLength: 200 })).rejects.toThrow(
      'x.xml:2:1: an <item> with no </item> in its first 200 characters: the export is broken here, or cut ' +
        'short; export it again from WordPress (nothing was written)',
    );
    const cdata = `<rss><channel>\n<title>T</title> <![CDATA[${'y'.repeat(500)}`;
    await expect(split(pieces(cdata, 50), { maxItemLength: 200 })).rejects.toThrow(
      'x.xml:2:18: a CDATA section with no ]]> in its first 200 characters',
    );
    // An item of any length is taken once it is closed within the cap of what is held.
    const { items } = await split(pieces(`${long}</title></item></channel></rss>`, 50), {
      maxItemLength: 600,
    });
    expect(items).toHaveLength(1);
  });
});

describe('detach', () => {
  it('copies any string exactly: astral characters, and lone surrogates that UTF-8 cannot hold', () => {
    for (const text of [
      '',
      'post-1',
      'café 😀 '.repeat(20),
      `a\uD800b${'x'.repeat(20)}`,
      '\uDC00'.repeat(20),
    ])
      expect(detach(text)).toBe(text);
  });
});

describe('import wordpress of an odd export', () => {
  let project: Awaited<ReturnType<typeof projectWith>> | undefined;
  afterEach(async () => {
    await project?.close();
    project = undefined;
  });

  it('reports an export cut inside an item at that item, exits 1 and writes nothing', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const text = await project.read('export.xml');
    const cutAt = text.indexOf('<item>', text.indexOf('<item>') + 1);
    const line = text.slice(0, cutAt).split('\n').length;
    const column = cutAt - text.lastIndexOf('\n', cutAt - 1);
    await writeFile(path.join(project.dir, 'export.xml'), text.slice(0, cutAt + 200));
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `export.xml:${line}:${column}: this <item> has no </item>: the export ends inside it (cut short in a ` +
        'download or copy?); export it again from WordPress (nothing was written)\n',
    );
    expect(await readdir(project.dir)).toEqual(['export.xml']);
  });

  it('imports a post whose CDATA holds </item> whole', async () => {
    project = await projectWith('wordpress/export.xml', 'export.xml');
    const text = await project.read('export.xml');
    await writeFile(
      path.join(project.dir, 'export.xml'),
      text.replace(
        'The river rose <strong>two metres</strong>',
        'The river rose <code>&lt;/item&gt;</item></code>',
      ),
    );
    const run = await runInProcess(project.dir, ['import', 'wordpress', 'export.xml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('  articles        4 written\n');
    expect(await project.read('content/articles/flood-warning.md')).toContain('The river rose `</item>`');
  });
});
