/**
 * URLs that the old site turned into players (WordPress's auto-embeds and embed blocks), and
 * what they become in Markdown. YouTube, Vimeo and X/Twitter become the shortcodes that sync
 * expands (`{{< youtube ID >}}`, src/render/templates/builtins.ts), so the Markdown stays
 * readable; Spotify, SoundCloud and Dailymotion become the player's `<iframe>`. Any other
 * provider WordPress embeds keeps its URL as a link, and the importer reports it.
 */
export type OEmbed =
  { kind: string; markdown: string } | { kind: string; iframe: string } | { kind: 'link'; provider: string };

/** Hosts WordPress core embeds from (its oEmbed provider list), without `www.`. */
const PROVIDERS = [
  'youtube.com',
  'youtu.be',
  'vimeo.com',
  'dailymotion.com',
  'dai.ly',
  'flickr.com',
  'flic.kr',
  'smugmug.com',
  'scribd.com',
  'wordpress.tv',
  'cloudup.com',
  'twitter.com',
  'x.com',
  'soundcloud.com',
  'slideshare.net',
  'instagram.com',
  'spotify.com',
  'imgur.com',
  'issuu.com',
  'mixcloud.com',
  'ted.com',
  'reddit.com',
  'tumblr.com',
  'kickstarter.com',
  'speakerdeck.com',
  'screencast.com',
  'amazon.com',
  'reverbnation.com',
  'videopress.com',
  'tiktok.com',
  'pinterest.com',
  'wolframcloud.com',
  'crowdsignal.net',
  'facebook.com',
  'tenor.com',
  'pocketcasts.com',
  'bsky.app',
];

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^(?:www|m|mobile|open|player|w)\./, '');
}

function providerOf(url: URL): string | undefined {
  const host = hostOf(url);
  return PROVIDERS.find((p) => host === p || host.endsWith(`.${p}`));
}

/** Whether WordPress would turn this URL, alone on its line, into a player. */
export function isOEmbedUrl(text: string): boolean {
  const url = parse(text);
  return url !== undefined && providerOf(url) !== undefined;
}

function parse(text: string): URL | undefined {
  if (!/^https?:\/\/\S+$/i.test(text.trim())) return undefined;
  try {
    return new URL(text.trim());
  } catch {
    return undefined;
  }
}

/** `t=90`, `t=1m30s`, `start=90` -> seconds, or undefined. */
function seconds(value: string | null): string | undefined {
  if (!value) return undefined;
  if (/^\d+s?$/.test(value)) return String(parseInt(value, 10));
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value);
  if (!m || !m[0]) return undefined;
  return String(Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0));
}

function youtubeId(url: URL): string | undefined {
  const host = hostOf(url);
  const path = url.pathname.split('/').filter(Boolean);
  const id =
    host === 'youtu.be'
      ? path[0]
      : (url.searchParams.get('v') ??
        (['embed', 'shorts', 'live', 'v'].includes(path[0] ?? '') ? path[1] : undefined));
  return id && /^[\w-]+$/.test(id) ? id : undefined;
}

function iframe(src: string, title: string): string {
  const escaped = src.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<iframe src="${escaped}" title="${title}" allowfullscreen></iframe>`;
}

/** What an embedded URL becomes, or undefined when it is not a URL of a known provider. */
export function oembed(text: string): OEmbed | undefined {
  const url = parse(text);
  const provider = url && providerOf(url);
  if (!url || !provider) return undefined;
  const path = url.pathname.split('/').filter(Boolean);
  switch (provider) {
    case 'youtube.com':
    case 'youtu.be': {
      const id = youtubeId(url);
      if (!id) break;
      const start = seconds(url.searchParams.get('t') ?? url.searchParams.get('start'));
      return {
        kind: '{{< youtube >}}',
        markdown: start ? `{{< youtube id="${id}" start="${start}" >}}` : `{{< youtube ${id} >}}`,
      };
    }
    case 'vimeo.com': {
      const id = [...path].reverse().find((segment) => /^\d+$/.test(segment));
      if (id) return { kind: '{{< vimeo >}}', markdown: `{{< vimeo ${id} >}}` };
      break;
    }
    case 'twitter.com':
    case 'x.com': {
      const [user, status, id] = path;
      if (user && /^\w+$/.test(user) && /^status(?:es)?$/.test(status ?? '') && id && /^\d+$/.test(id))
        return { kind: '{{< x >}}', markdown: `{{< x user="${user}" id="${id}" >}}` };
      break;
    }
    case 'spotify.com':
      if (path.length >= 2 && !url.pathname.startsWith('/embed/'))
        return {
          kind: '<iframe> (Spotify)',
          iframe: iframe(`https://open.spotify.com/embed/${path.slice(-2).join('/')}`, 'Spotify'),
        };
      break;
    case 'soundcloud.com':
      return {
        kind: '<iframe> (SoundCloud)',
        iframe: iframe(`https://w.soundcloud.com/player/?url=${encodeURIComponent(url.href)}`, 'SoundCloud'),
      };
    case 'dailymotion.com':
    case 'dai.ly': {
      const id = provider === 'dai.ly' ? path[0] : path[0] === 'video' ? path[1] : undefined;
      if (id && /^\w+$/.test(id))
        return {
          kind: '<iframe> (Dailymotion)',
          iframe: iframe(`https://www.dailymotion.com/embed/video/${id}`, 'Dailymotion video'),
        };
      break;
    }
  }
  return { kind: 'link', provider };
}
