/**
 * One comment per pull request, kept up to date: the REST calls `ci-report --pr-comment` makes.
 * The caller passes `fetch` and the values of the Actions environment, so this reads no globals.
 */
import { COMMENT_MARKER } from './ci-report.js';

export interface GitHubContext {
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's. */
  apiUrl: string;
  /** A token that may write pull request comments (the workflow's `github.token`). */
  token: string;
  /** GITHUB_REPOSITORY: owner/name. */
  repository: string;
  /** The pull request's number. */
  pullRequest: number;
  fetch: typeof fetch;
}

interface IssueComment {
  id: number;
  body?: string;
  html_url?: string;
  user?: { login?: string; type?: string } | null;
}

/** Pages of comments read at most while looking for ours (100 each). */
const MAX_PAGES = 30;

/**
 * Creates the plan comment, or edits the one an earlier run made: the first comment by a bot
 * account (the workflow's token acts as github-actions[bot]) that starts with the marker.
 * A comment by a person that carries the marker is not ours, and is left alone.
 */
export async function upsertPlanComment(
  ctx: GitHubContext,
  body: string,
): Promise<{ action: 'created' | 'updated'; id: number; url?: string }> {
  const repo = ctx.repository.split('/').map(encodeURIComponent).join('/');
  const base = `${ctx.apiUrl.replace(/\/+$/, '')}/repos/${repo}`;
  let ours: IssueComment | undefined;
  for (let page = 1; page <= MAX_PAGES && !ours; page += 1) {
    const url = `${base}/issues/${ctx.pullRequest}/comments?per_page=100&page=${page}`;
    const comments = (await call(ctx, 'GET', url)) as IssueComment[];
    ours = comments.find((c) => c.user?.type === 'Bot' && c.body?.trimStart().startsWith(COMMENT_MARKER));
    if (comments.length < 100) break;
  }
  if (ours) {
    const updated = (await call(ctx, 'PATCH', `${base}/issues/comments/${ours.id}`, {
      body,
    })) as IssueComment;
    return {
      action: 'updated',
      id: updated.id ?? ours.id,
      ...(updated.html_url ? { url: updated.html_url } : {}),
    };
  }
  const created = (await call(ctx, 'POST', `${base}/issues/${ctx.pullRequest}/comments`, {
    body,
  })) as IssueComment;
  return { action: 'created', id: created.id, ...(created.html_url ? { url: created.html_url } : {}) };
}

async function call(ctx: GitHubContext, method: string, url: string, body?: unknown): Promise<unknown> {
  const response = await ctx.fetch(url, {
    method,
    headers: {
      accept: 'application/vnd.github+json',
      authorization: `Bearer ${ctx.token}`,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'cms-sync',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (!response.ok) {
    let why = text.slice(0, 200);
    try {
      why = String((JSON.parse(text) as { message?: unknown }).message ?? why);
    } catch {
      // Not JSON: the start of the text says enough.
    }
    const hint =
      response.status === 403 || response.status === 404
        ? ' (the workflow needs `permissions: pull-requests: write`; a pull request from a fork gets a read-only token)'
        : '';
    throw new Error(
      `GitHub answered ${method} ${new URL(url).pathname} with HTTP ${response.status}: ${why}${hint}`,
    );
  }
  return text ? JSON.parse(text) : undefined;
}

/** The pull request's number from the event payload (GITHUB_EVENT_PATH), or undefined. */
export function pullRequestNumber(event: unknown): number | undefined {
  const payload = event as { pull_request?: { number?: unknown }; number?: unknown } | null;
  const n = payload?.pull_request?.number ?? payload?.number;
  return Number.isSafeInteger(n) && (n as number) > 0 ? (n as number) : undefined;
}
