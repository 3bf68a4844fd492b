// The bare unified pipeline: exactly the plugins cms-sync renders with, none of its own code.
// The baseline of bench/render.mjs; also runs as a worker thread (see barePool there).
import { parentPort } from 'node:worker_threads';
import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';

const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeStringify)
  .freeze();

export const render = (markdown) => String(processor.processSync(markdown));

parentPort?.on('message', ({ id, md }) => parentPort.postMessage({ id, html: render(md) }));
