import { MockAgent, type Dispatcher } from 'undici';
import { createClient, type ClientEvent, type ClientOptions } from '../../src/remote/client.js';

export const ORIGIN = 'http://cms.test';
export const PATH = '/functions/api';
/** Distinctive, so that any leak into a message or event is found by a substring search. */
export const TOKEN = 'tok_SECRET_4f9c2e71d0a8';

export interface Sent {
  body: Record<string, unknown>;
  headers: Record<string, string>;
  path: string;
  at: number;
}

export interface Answer {
  statusCode: number;
  data?: unknown;
  headers?: Record<string, string>;
}

/** A clock whose sleeps return at once and move time forward by what was asked. */
export function fakeClock(start = 1_000_000) {
  let time = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => time,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      time += ms;
    },
  };
}

/**
 * A MockAgent answering every POST on ORIGIN from `answer`, recording each request with the
 * time `now()` says it arrived.
 */
export function mockCms(
  answer: (body: Record<string, unknown>, index: number) => Answer,
  now: () => number = Date.now,
) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const sent: Sent[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: 'POST' })
    .reply((opts) => {
      const body = JSON.parse(String(opts.body)) as Record<string, unknown>;
      sent.push({ body, headers: lowerHeaders(opts.headers), path: opts.path, at: now() });
      const { statusCode, data, headers } = answer(body, sent.length - 1);
      const payload = typeof data === 'string' ? data : JSON.stringify(data ?? null);
      return { statusCode, data: payload, responseOptions: { headers: headers ?? {} } };
    })
    .persist();
  return { agent, dispatcher: agent as Dispatcher, sent };
}

/** A client on a mock CMS with a fake clock, a fixed random, and its events kept. */
export function setup(
  answer: (body: Record<string, unknown>, index: number) => Answer,
  overrides: Partial<ClientOptions> = {},
) {
  const clock = fakeClock();
  const cms = mockCms(answer, clock.now);
  const events: ClientEvent[] = [];
  const client = createClient({
    baseUrl: ORIGIN,
    token: TOKEN,
    dispatcher: cms.dispatcher,
    random: () => 0.5,
    now: clock.now,
    sleep: clock.sleep,
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  return { client, events, clock, sent: cms.sent, agent: cms.agent };
}

export const ok = (data: unknown): Answer => ({ statusCode: 200, data: { status: 'success', data } });
export const fail = (statusCode: number, message: string, headers?: Record<string, string>): Answer => ({
  statusCode,
  data: { status: 'error', message },
  ...(headers ? { headers } : {}),
});

/** Runs `promise` to its rejection and returns the error (fails the test if it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection');
}

function lowerHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((headers ?? {}) as Record<string, unknown>))
    out[k.toLowerCase()] = String(v);
  return out;
}
