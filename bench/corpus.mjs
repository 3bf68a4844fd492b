// The generated newsroom the benchmarks run on.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A newsroom-like corpus: categories, articles of a few paragraphs, 1 in 10 with a shared image. */
export async function generateCorpus(root, count) {
  const images = 20;
  await mkdir(path.join(root, 'articles'), { recursive: true });
  await mkdir(path.join(root, 'categories'), { recursive: true });
  await mkdir(path.join(root, 'images'), { recursive: true });
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  for (let i = 0; i < images; i += 1) await writeFile(path.join(root, 'images', `photo-${i}.png`), Buffer.concat([png, Buffer.from(`#${i}`)]));
  for (const c of ['politics', 'climate', 'culture']) await writeFile(path.join(root, 'categories', `${c}.md`), `---\nname: ${c[0].toUpperCase()}${c.slice(1)}\n---\n`);
  const paragraph = 'The council met on Tuesday to discuss the **budget** for the coming year, with members divided over [transport](https://example.com/transport) spending and the future of the river crossing.';
  const batch = [];
  for (let i = 0; i < count; i += 1) {
    const image = i % 10 === 0 ? `\n![Photo ${i}](../images/photo-${(i / 10) % images}.png)\n` : '';
    const body = `## Story ${i}\n\n${paragraph}\n\n${paragraph}\n${image}\n- first point\n- second point\n\n> A quote from someone involved.\n`;
    batch.push(writeFile(path.join(root, 'articles', `story-${i}.md`), `---\ntitle: Story number ${i}\ndate: 2026-01-${String((i % 28) + 1).padStart(2, '0')}\ncategory: ${['politics', 'climate', 'culture'][i % 3]}\n---\n\n${body}`));
    if (batch.length >= 256) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}
