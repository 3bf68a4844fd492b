import type { IncomingMessage } from 'node:http';
import { ApiError } from './envelope.js';

export interface HostCheckOptions {
  /** The address the server was asked to listen on (`--host`). */
  boundHost: string;
  /** The port it listens on, known once it listens. */
  port: () => number;
  /** More host names a client may use; `*` accepts any. */
  allowedHosts: readonly string[];
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * Refuses requests whose `Host` header names a host other than this server's. A web page on
 * another site can make a browser send requests here through a name that it re-points at
 * 127.0.0.1 (DNS rebinding); such requests carry that name in `Host`, and are refused. Names
 * that cannot be re-pointed are accepted: loopback, the address the server was bound to and the
 * address the connection arrived on.
 */
export function createHostCheck(options: HostCheckOptions): (req: IncomingMessage) => void {
  const allowed = new Set([...LOOPBACK_NAMES, options.boundHost, ...options.allowedHosts].map(normalizeName));
  const anyHost = allowed.has('*');
  return (req) => {
    if (anyHost) return;
    const header = req.headers.host;
    const parsed = header === undefined ? undefined : splitHost(header);
    const port = options.port();
    const portOk =
      parsed !== undefined && (parsed.port === port || (parsed.port === undefined && port === 80));
    const local = normalizeName(req.socket.localAddress ?? '');
    if (parsed && portOk && (allowed.has(parsed.name) || parsed.name === local)) return;
    if (header === undefined) {
      throw new ApiError(
        403,
        `The request has no Host header; send this server's, e.g. "Host: 127.0.0.1:${port}".`,
      );
    }
    const shown = JSON.stringify(header.slice(0, 200));
    const use = `Use http://127.0.0.1:${port} or http://localhost:${port}, or allow that name with --allow-host.`;
    throw new ApiError(403, `The Host header ${shown} does not name this server. ${use}`);
  };
}

function splitHost(header: string): { name: string; port: number | undefined } | undefined {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match?.[1]) return undefined;
  return { name: normalizeName(match[1]), port: match[2] === undefined ? undefined : Number(match[2]) };
}

/** Lower case, no brackets around IPv6, no trailing dot, IPv4-mapped IPv6 as plain IPv4. */
function normalizeName(name: string): string {
  return name
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}
