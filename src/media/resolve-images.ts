import type { MissingMedia } from '../config/schema.js';
import type { FileProblem } from '../errors.js';
import { replaceBlocks } from '../render/bind-media.js';
import type { ImageRef } from '../render/rewrite-media.js';
import type { MediaResolver, MediaSource } from './resolve-media.js';

/** An image's alt text and title where the body uses it; they go to its media record. */
export interface ImageText {
  /** The address as written (not part of the digest: the source is). */
  src?: string;
  alt: string;
  title?: string;
  /** Where the image is in its file, 1-based. */
  line: number;
  column: number;
}

export interface ResolvedImages {
  /** The rendered HTML, with images that cannot be had replaced as media.onMissing says. */
  html: string;
  /** The images that become media blocks, in block order, and the text of each. */
  media: MediaSource[];
  text: ImageText[];
  problems: FileProblem[];
  /** How many images could not be had and were replaced: the record must be built again next run. */
  replaced: number;
}

/**
 * The images of a rendered body -> media sources. An image that cannot be had (a missing local
 * file, a remote one that failed) is an error, or with media.onMissing 'warn' a plain `<img>`
 * of what was written, or with 'drop' nothing; both with a warning at the image.
 */
export async function resolveImages(
  rendered: { html: string; images: readonly ImageRef[] },
  doc: { file: string; absPath: string; bodyLine: number },
  resolver: MediaResolver,
  onMissing: MissingMedia,
): Promise<ResolvedImages> {
  const media: MediaSource[] = [];
  const text: ImageText[] = [];
  const problems: FileProblem[] = [];
  const replacements: Array<string | undefined> = [];
  for (const image of rendered.images) {
    const line = doc.bodyLine + image.line - 1;
    const at = (message: string, severity: FileProblem['severity']) =>
      problems.push({ file: doc.file, line, column: image.column, message, severity });
    const resolved = await resolver.resolve(image.src, doc.absPath);
    if (resolved.ok) {
      media.push(resolved.source);
      text.push({
        src: image.src,
        alt: image.alt,
        ...(image.title === undefined ? {} : { title: image.title }),
        line,
        column: image.column,
      });
      replacements.push(undefined);
    } else if (resolved.missing && onMissing === 'warn') {
      at(
        `${resolved.message}; published as a plain <img> of that address (media.onMissing: 'warn')`,
        'warning',
      );
      replacements.push(plainImage(image));
    } else if (resolved.missing && onMissing === 'drop') {
      at(`${resolved.message}; published without the image (media.onMissing: 'drop')`, 'warning');
      replacements.push('');
    } else {
      at(resolved.message, 'error');
      replacements.push(undefined);
    }
  }
  const replaced = replacements.filter((r) => r !== undefined).length;
  const html = replaced > 0 ? replaceBlocks(rendered.html, replacements) : rendered.html;
  return { html, media, text, problems, replaced };
}

/** What media.onMissing 'warn' leaves of an image: an <img> of the address written. */
export function plainImage(image: Pick<ImageRef, 'src' | 'alt' | 'title'>): string {
  const title = image.title === undefined ? '' : ` title="${escapeAttribute(image.title)}"`;
  return `<img src="${escapeAttribute(image.src)}" alt="${escapeAttribute(image.alt)}"${title}>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
