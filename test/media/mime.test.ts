import { describe, expect, it } from 'vitest';
import { MEDIA_EXTENSIONS } from '../../src/resources.js';
import { chooseMime, mimeOfExtension } from '../../src/server/media/mime.js';

describe('media types (one table, for the local CMS and the server of content/ media)', () => {
  it('has a type for every media extension cms-sync sends, and none for others', () => {
    expect(MEDIA_EXTENSIONS.filter((ext) => mimeOfExtension(ext) === undefined)).toEqual([]);
    expect([mimeOfExtension('JPG'), mimeOfExtension('constructor'), mimeOfExtension('txt')]).toEqual([
      'image/jpeg',
      undefined,
      undefined,
    ]);
    expect(chooseMime('application/octet-stream', 'a.SVG')).toBe('image/svg+xml');
  });
});
