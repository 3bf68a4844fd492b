import { ApiError } from '../http/envelope.js';

/**
 * Which hosts `upload_from_url` may fetch from. Entries are host names or IP addresses as they
 * appear in the URL (`cdn.example.com`, `127.0.0.1`, `::1`), or `*.example.com` for every
 * subdomain of example.com. A denied host is refused even when it is also allowed; when `allow`
 * is non-empty, every other host is refused.
 */
export interface UploadHostRules {
  allow?: readonly string[];
  deny?: readonly string[];
}

/** Throws a 400 when `url`'s host may not be fetched; `what` names the URL in the message. */
export function checkUploadHost(url: URL, rules: UploadHostRules, what: string): void {
  const host = normalizeHost(url.hostname);
  const denied = rules.deny?.find((pattern) => hostMatches(host, pattern));
  if (denied !== undefined) {
    throw new ApiError(
      400,
      `${what} points at ${host}, a host this server refuses to fetch from (upload deny list: ${denied}).`,
    );
  }
  if (rules.allow && rules.allow.length > 0 && !rules.allow.some((pattern) => hostMatches(host, pattern))) {
    throw new ApiError(
      400,
      `${what} points at ${host}, which is not in this server's upload allow list (${rules.allow.join(', ')}).`,
    );
  }
}

function hostMatches(host: string, pattern: string): boolean {
  const wanted = normalizeHost(pattern);
  if (wanted.startsWith('*.')) return host.endsWith(wanted.slice(1));
  return host === wanted;
}

function normalizeHost(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}
