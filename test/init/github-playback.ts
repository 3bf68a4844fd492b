import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Exchange {
  request: { method: string; path: string };
  response: { status: number; body: unknown };
}

/** GitHub REST answers recorded for one pull request, run by run (test/fixtures/github/pr-comment.json). */
export const RECORDED = JSON.parse(
  readFileSync(new URL('../fixtures/github/pr-comment.json', import.meta.url), 'utf8'),
) as { runs: Exchange[][] };

export interface Received {
  method: string;
  path: string;
  authorization?: string;
  apiVersion?: string;
  body?: any;
}

/**
 * Plays back recorded GitHub answers in order, as GITHUB_API_URL: a request that is not the next
 * one recorded gets a 599, which the test then sees fail.
 */
export async function playback(
  exchanges: Exchange[],
): Promise<{ url: string; received: Received[]; server: Server }> {
  const queue = [...exchanges];
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      received.push({
        method: req.method!,
        path: req.url!,
        authorization: req.headers.authorization,
        apiVersion: req.headers['x-github-api-version'] as string,
        ...(text ? { body: JSON.parse(text) } : {}),
      });
      const next = queue.shift();
      if (!next || next.request.method !== req.method || next.request.path !== req.url) {
        res.writeHead(599).end(`not recorded: ${req.method} ${req.url}`);
        return;
      }
      res.writeHead(next.response.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(next.response.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}
