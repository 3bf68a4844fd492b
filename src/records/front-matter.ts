import type { z as Z } from 'zod';
import type { RecordResource } from '../resources.js';
import { zod } from '../zod.js';
import { parseDate } from './parse-date.js';

type Schemas = Readonly<Record<RecordResource, Z.ZodObject>>;
let built: Schemas | undefined;

/**
 * Front matter that cms-sync understands, per resource (docs/contract.md, Layout), built on first use (a run
 * that parses no file never loads zod). Keys not listed here are "extra": passed through or
 * reported, as the config says.
 */
export function frontMatterSchema(resource: RecordResource): Z.ZodObject {
  return (built ??= buildSchemas(zod()))[resource];
}

function buildSchemas(z: typeof Z): Schemas {
  /** A real date (see parseDate); the zone only moves it, so validity is checked in UTC. */
  const dateLike = z.unknown().superRefine((value, ctx) => {
    const parsed = parseDate(value, 'UTC');
    if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
  });
  const text = (name: string) =>
    z.string({ error: (issue) => `\`${name}\` must be text, got ${got(issue.input)}` });
  // Only a missing key is "required": `title: 5` is there, and is reported as what it is.
  const required = (name: string) =>
    z
      .string({
        error: (issue) =>
          issue.input === undefined
            ? `\`${name}\` is required: add \`${name}: ...\` to the front matter`
            : `\`${name}\` must be text, got ${got(issue.input)}; quote it if it is meant as text: ${name}: "..."`,
      })
      .trim()
      .min(1, { error: `\`${name}\` must not be empty` });
  const status = z
    .number({ error: '`status` must be a number (see statusMap in the config for draft/published)' })
    .int({ error: '`status` must be a whole number' });
  const draft = z.boolean({ error: '`draft` must be true or false' });
  /** Jekyll's `published: false` is a draft too. */
  const published = z.boolean({ error: '`published` must be true or false' });

  return {
    article: z.object({
      title: required('title'),
      slug: text('slug').optional(),
      date: dateLike.optional(),
      status: status.optional(),
      draft: draft.optional(),
      published: published.optional(),
      category: text('category').trim().min(1).optional(),
    }),
    page: z.object({
      title: required('title'),
      slug: text('slug').optional(),
      status: status.optional(),
      draft: draft.optional(),
      published: published.optional(),
    }),
    category: z.object({
      name: text('name').trim().min(1).optional(),
      title: text('title').trim().min(1).optional(),
      slug: text('slug').optional(),
      description: text('description').optional(),
    }),
    breaking: z.object({
      title: required('title'),
      slug: text('slug').optional(),
      url: z.url({ error: '`url` must be an absolute URL, e.g. https://example.com/live' }).optional(),
      status: status.optional(),
      draft: draft.optional(),
      published: published.optional(),
    }),
    user: z.object({
      name: required('name'),
      slug: text('slug').optional(),
      email: z.email({ error: '`email` is not an email address' }).optional(),
      role: text('role').optional(),
      bio: text('bio').optional(),
    }),
  };
}

/** What a front matter value is, for messages: `a number (5)`, `a list`, `nothing`. */
function got(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (the key has no value)';
  if (value instanceof Date)
    return Number.isNaN(value.getTime()) ? 'a date' : `a date (${value.toISOString().slice(0, 10)})`;
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping of keys';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return `a ${typeof value} (${String(value)})`;
  return `a ${typeof value}`;
}

export function knownKeys(resource: RecordResource): string[] {
  return Object.keys(frontMatterSchema(resource).shape);
}
