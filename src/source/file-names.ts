// Which names content/ holds documents under, and which it passes over: apart from content-paths.ts,
// with no imports, so that the stat worker can load them without the rest of cms-sync.

export const DOCUMENT_EXTENSION = /\.(?:md|markdown)$/i;

/**
 * Files editors and OSes leave beside the real ones: dotfiles (`.x.swp`, `.#x.md` Emacs locks,
 * `.DS_Store`), backups (`x.md~`), Emacs autosaves (`#x.md#`), Office locks (`~$x`). Vim's
 * `4913` probe has no extension, so it is never a document or media file anyway.
 */
export function isIgnoredName(name: string): boolean {
  return (
    name.startsWith('.') ||
    name.startsWith('#') ||
    name.startsWith('~$') ||
    name.endsWith('~') ||
    name.endsWith('#')
  );
}

export function isIgnoredFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

export function isDocumentName(name: string): boolean {
  return DOCUMENT_EXTENSION.test(name) && !isIgnoredName(name);
}
