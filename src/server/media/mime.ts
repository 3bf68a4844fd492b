import { extname } from 'node:path';

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

const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/binary']);

/** The origin's Content-Type when it says something specific, else a guess from the file name. */
export function chooseMime(contentType: string | undefined, filename: string): string {
  const declared = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (!GENERIC.has(declared)) return declared;
  return BY_EXTENSION[extname(filename).slice(1).toLowerCase()] ?? 'application/octet-stream';
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
