import { record, text } from './site-values.js';

/**
 * The image a static site's theme shows for a post or page (on it, in lists, on social cards), as
 * its front matter or its bundle declares it. The importers write it as `featured_image`, as the
 * WordPress and Ghost importers do; each theme has its own keys, so each generator lists the
 * readers of its popular themes, best first.
 */
export interface FeaturedImage {
  /** The front matter keys it was read from, the first giving its line; none for a bundle's file. */
  keys: string[];
  /** As written: another site's URL, the old site's own, a root-relative path or one relative to the page. */
  src: string;
  /** Other places to look, in order, when `src` is not in the site (Hugo Blox's `assets/media/`). */
  alternatives?: string[];
  alt?: string;
  /** Markdown, as the themes render it (`markdownify`). */
  caption?: string;
  /** The theme did not show it (PaperMod's `cover.hidden`): imported all the same, and reported. */
  hidden?: boolean;
}

/** Reads one front matter key: its image, or undefined when the value names none. */
export type FeaturedReader = (data: Record<string, unknown>) => FeaturedImage | undefined;

/**
 * A key holding the image as a string, or as a mapping (PaperMod's `cover: {image, alt, caption}`,
 * Chirpy's and jekyll-seo-tag's `image: {path, alt}`, Hugo Blox's `image: {filename, caption}`,
 * Eleventy starters' `image: {src, alt}`, `{url}`).
 * `siblings` are keys beside it that hold its alt text and caption (Clarity's `featureImageAlt`).
 */
export function imageKey(key: string, siblings: { alt?: string; caption?: string } = {}): FeaturedReader {
  return (data) => {
    const value = data[key];
    const fields = record(value);
    const src =
      given(value) ??
      given(fields.image) ??
      given(fields.path) ??
      given(fields.filename) ??
      given(fields.src) ??
      given(fields.url);
    if (src === undefined) return undefined;
    const keys = [key, ...[siblings.alt, siblings.caption].filter((k): k is string => k !== undefined)];
    return described(
      { keys, src, ...(hiddenBy(fields) ? { hidden: true } : {}) },
      given(fields.alt) ?? given(fields.alt_text) ?? (siblings.alt ? given(data[siblings.alt]) : undefined),
      given(fields.caption) ?? (siblings.caption ? given(data[siblings.caption]) : undefined),
    );
  };
}

/**
 * Hugo Blox (Wowchemy) shows a bundle's `*featured*` image (`bundled`), else `image.filename`,
 * which it finds in assets/media/; `image.caption` is the caption either way. Stack's `image` is
 * a string naming a file of the bundle.
 */
export function hugoBloxImage(bundled: string | undefined): FeaturedReader {
  const plain = imageKey('image');
  return (data) => {
    const fields = record(data.image);
    if (Object.keys(fields).length === 0) return plain(data);
    if (bundled === undefined) {
      const image = plain(data);
      return image && { ...image, alternatives: [`media/${image.src}`] };
    }
    return described(
      { keys: ['image'], src: bundled, ...(hiddenBy(fields) ? { hidden: true } : {}) },
      given(fields.alt_text) ?? given(fields.alt),
      given(fields.caption),
    );
  };
}

/** A bundle's file the theme takes as the post's image by its name: no key names it. */
export function bundleFile(bundled: string | undefined): FeaturedReader {
  return () => (bundled === undefined ? undefined : { keys: [], src: bundled });
}

/** A list of images whose first is the page's (Hugo's `images`, which its social-card templates read). */
export function firstOfList(key: string): FeaturedReader {
  return (data) => {
    const value = data[key];
    const src = given(Array.isArray(value) ? value[0] : value);
    return src === undefined ? undefined : { keys: [key], src };
  };
}

/**
 * Minimal Mistakes' `header`: `image` shown above the post, else `overlay_image` behind its title,
 * else `teaser`, the image of its card in lists; `image_description` is the alt text.
 */
export const minimalMistakesHeader: FeaturedReader = (data) => {
  const header = record(data.header);
  const src = given(header.image) ?? given(header.overlay_image) ?? given(header.teaser);
  if (src === undefined) return undefined;
  return described({ keys: ['header'], src }, given(header.image_description), given(header.caption));
};

/** The images the readers find, in their order: the first is the post's featured image. */
export function featuredImages(
  data: Record<string, unknown>,
  readers: readonly FeaturedReader[],
): FeaturedImage[] {
  return readers.map((read) => read(data)).filter((image): image is FeaturedImage => image !== undefined);
}

/**
 * PaperMod hides a cover with `hidden` (everywhere), `hiddenInList` or `hiddenInSingle`; Hugo
 * Blox with `preview_only` (lists only). Each still named the post's image on social cards.
 */
function hiddenBy(fields: Record<string, unknown>): boolean {
  return ['hidden', 'hiddenInList', 'hiddenInSingle', 'preview_only'].some((key) => fields[key] === true);
}

/**
 * A value as written, but for a theme's placeholder left in place: PaperMod's archetype writes
 * `image: "<image path/url>"`, `alt: "<alt text>"`, which many posts keep unfilled.
 */
function given(value: unknown): string | undefined {
  const written = text(value);
  return written === undefined || /^<[^<>]*>$/.test(written) ? undefined : written;
}

function described(
  image: FeaturedImage,
  alt: string | undefined,
  caption: string | undefined,
): FeaturedImage {
  return { ...image, ...(alt ? { alt } : {}), ...(caption ? { caption } : {}) };
}
