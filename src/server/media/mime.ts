import { extname } from 'node:path';

/**
 * The media types the CMS knows, by file extension: the one table of them, also read by the
 * server that hands content/'s media files to the CMS, so a file is served as what it is stored as.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
};

const EXTENSION_BY_MIME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(BY_EXTENSION)
    .filter(([ext]) => ext !== 'jpeg')
    .map(([ext, mime]) => [mime, ext]),
);

/** The media type of a file extension (`png`, `JPG`), or undefined for one the CMS does not know. */
export function mimeOfExtension(extension: string): string | undefined {
  const ext = extension.toLowerCase();
  return Object.hasOwn(BY_EXTENSION, ext) ? BY_EXTENSION[ext] : undefined;
}

const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary']);

/** The origin's Content-Type when it says something specific, else a guess from the file name. */
export function chooseMime(contentType: string | undefined, filename: string): string {
  const declared = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!GENERIC.has(declared)) return declared;
  return mimeOfExtension(extname(filename).slice(1)) ?? 'application/octet-stream';
}

/**
 * A file name safe on any disk and in a URL path, taken from the URL's last path segment;
 * given an extension from the MIME type when it has none.
 */
export function filenameFor(url: URL, mime: string): string {
  const segment = url.pathname.split('/').filter(Boolean).pop() ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    decoded = segment;
  }
  let name =
    decoded
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[.-]+/, '')
      .slice(-120) || 'file';
  if (!extname(name)) {
    const ext = EXTENSION_BY_MIME[mime];
    if (ext) name = `${name}.${ext}`;
  }
  return name;
}
