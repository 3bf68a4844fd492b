// The generated newsroom the benchmarks run on: categories, articles of about `kb` KiB of
// Markdown (headings, paragraphs with links and emphasis, lists, quotes), and one image shared
// by every tenth article, out of `images` distinct files.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PARAGRAPH =
  'The council met on Tuesday to discuss the **budget** for the coming year, with members divided over ' +
  '[transport](https://example.com/transport) spending and the future of the river crossing. ';

export function articleBody(i, kb = 2, image = '') {
  const sections = [];
  for (let s = 0; sections.join('').length < kb * 1024; s += 1) {
    sections.push(
      `## Part ${s + 1} of story ${i}\n\n${PARAGRAPH.repeat(3)}\n\n${PARAGRAPH.repeat(2)}\n\n- first point of ` +
        `${i}\n- second point\n\n> A quote from someone involved, number ${s}.\n\n`,
    );
  }
  return `${sections.join('')}${image}`;
}

export async function generateCorpus(root, count, { kb = 2, images = 20, everyNthHasImage = 10 } = {}) {
  await mkdir(path.join(root, 'articles'), { recursive: true });
  await mkdir(path.join(root, 'categories'), { recursive: true });
  await mkdir(path.join(root, 'images'), { recursive: true });
  for (let i = 0; i < images; i += 1)
    await writeFile(path.join(root, 'images', `photo-${i}.png`), Buffer.concat([PNG, Buffer.from(`#${i}`)]));
  for (const c of ['politics', 'climate', 'culture'])
    await writeFile(
      path.join(root, 'categories', `${c}.md`),
      `---\nname: ${c[0].toUpperCase()}${c.slice(1)}\n---\n`,
    );
  const batch = [];
  for (let i = 0; i < count; i += 1) {
    const image =
      i % everyNthHasImage === 0
        ? `\n![Photo ${i}](../images/photo-${Math.floor(i / everyNthHasImage) % images}.png)\n`
        : '';
    batch.push(
      writeFile(
        path.join(root, 'articles', `story-${i}.md`),
        `---\ntitle: Story number ${i}\ndate: 2026-01-${String((i % 28) + 1).padStart(2, '0')}\ncategory: ` +
          `${['politics', 'climate', 'culture'][i % 3]}\n---\n\n${articleBody(i, kb, image)}`,
      ),
    );
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}
