import type { z as Z } from 'zod';
import type { RecordResource } from '../resources.js';
import type { ZodKit } from '../zod.js';

/**
 * Everything cms-sync knows about one record resource, in one place: where its files live, what
 * their front matter may say, what that becomes in the CMS and back, what it points at, and
 * whether it has a status and may be deleted. Record building, the config's managed fields, the
 * plan, the payload, apply's ordering, the importers' writer and pull (through fromApi, in
 * derived.ts) read this table; a new resource or relation is an entry here (plus the name in
 * RECORD_RESOURCES), never code elsewhere.
 */
export interface ResourceDescriptor {
  /** `content/<folder>/<slug>.md` */
  folder: string;
  /** Managed fields of its own, in the order shown (status, relations and the HTML field are added). */
  fields: readonly string[];
  /** The field that holds the Markdown body rendered to HTML, if the body is rendered. */
  htmlField?: string;
  /** Front matter `status` / `draft` / `published` set the `status` field. */
  hasStatus: boolean;
  /** Whether records may be deleted when their file is gone (the default of `resources.<r>.allowDelete`). */
  deletable: boolean;
  /** Front matter keys that name other records by slug; each becomes an id field when sent. */
  relations: readonly Relation[];
  /** Front matter keys of its own (slug, status keys and relation keys are added): zod shapes. */
  frontMatter: (kit: FrontMatterKit) => Record<string, Z.ZodType>;
  /** Validated front matter (and the body's text) -> field values of its own fields. */
  toFields: (fm: Record<string, unknown>, ctx: ToFieldsContext) => FieldsOrProblem;
  /** A CMS record (through `get`, by cms-sync field name) -> front matter keys of its own. */
  fromApi: (get: (field: string) => unknown, kit: FromApiKit) => Record<string, unknown>;
  /**
   * Fields the CMS sets on its own (cms-sync field names): pull never writes them into front
   * matter, not even with `passThrough: true`, nor reports them as left out. A managed field
   * listed here (an article's `created_at`) is still read back as the managed field it is.
   */
  serverKept: readonly string[];
}

/** What every record of the local CMS carries besides its own fields. */
const STAMPS = ['id', 'created_at', 'updated_at'] as const;

/** A front matter key that names records of `target` by slug, sent as their id(s) in `field`. */
export interface Relation {
  /** The front matter key, e.g. `author`. */
  key: string;
  target: RecordResource;
  /** The managed field that carries the id(s); `resources.<r>.fields` maps it to the API's name. */
  field: string;
  /** A list of slugs, sent as a list of ids, rather than one. */
  many: boolean;
}

/** The slugs one front matter key of a record names (`author: jane`, `authors: [a, b]`). */
export interface RecordRef {
  relation: Relation;
  /** NFC, in the order written, each once (one for a single relation). */
  slugs: string[];
  /** The key's line in the file, for messages. */
  line: number;
}

export interface FrontMatterKit {
  z: ZodKit;
  /** Optional text. */
  text: (name: string) => Z.ZodString;
  /** Text that must be there and not be blank. */
  required: (name: string) => Z.ZodType;
  /** A real date (see parseDate). */
  date: Z.ZodType;
}

export interface ToFieldsContext {
  /** The body, trimmed ('' when there is none). */
  bodyText: string;
  /** `created_at` from a front matter date (or the file name's), or undefined. */
  dateOf: (value: unknown) => string | undefined;
}

export type FieldsOrProblem = { values: Record<string, unknown> } | { problem: string; key?: string };

export interface FromApiKit {
  /** The text of a field, or undefined. */
  text: (field: string) => string | undefined;
  /** The text of a field that front matter requires ("(untitled)" with a warning when missing). */
  required: (field: string) => string;
  warn: (message: string) => void;
}

export const RESOURCE_TABLE: Readonly<Record<RecordResource, ResourceDescriptor>> = {
  category: {
    folder: 'categories',
    fields: ['name', 'slug', 'description'],
    hasStatus: false,
    deletable: true,
    relations: [{ key: 'parent', target: 'category', field: 'parent_id', many: false }],
    frontMatter: ({ text }) => ({
      name: text('name').trim().min(1).optional(),
      title: text('title').trim().min(1).optional(),
      description: text('description').optional(),
    }),
    toFields: (fm, { bodyText }) => {
      const name = fm.name ?? fm.title;
      if (typeof name !== 'string')
        return { problem: '`name` is required: add `name: ...` (or `title: ...`) to the front matter' };
      const description = fm.description ?? (bodyText || undefined);
      return { values: description === undefined ? { name } : { name, description } };
    },
    fromApi: (_get, { text, required }) => ({ name: required('name'), description: text('description') }),
    serverKept: STAMPS,
  },
  user: {
    folder: 'users',
    fields: ['name', 'slug', 'email', 'role', 'bio'],
    hasStatus: false,
    // People are not removed from a CMS because a file went away, unless the config says so.
    deletable: false,
    relations: [],
    frontMatter: ({ z, text, required }) => ({
      name: required('name'),
      email: z.email({ error: '`email` is not an email address' }).optional(),
      role: text('role').optional(),
      bio: text('bio').optional(),
    }),
    toFields: (fm, { bodyText }) => {
      const values: Record<string, unknown> = { name: fm.name };
      for (const key of ['email', 'role'] as const) if (fm[key] !== undefined) values[key] = fm[key];
      if (fm.bio !== undefined || bodyText) values.bio = fm.bio ?? bodyText;
      return { values };
    },
    fromApi: (_get, { text, required, warn }) => {
      const email = text('email');
      const valid = email !== undefined && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
      if (email && !valid) warn(`email \`${email}\` is not an address; left out`);
      return {
        name: required('name'),
        email: valid ? email : undefined,
        role: text('role'),
        bio: text('bio'),
      };
    },
    serverKept: STAMPS,
  },
  article: {
    folder: 'articles',
    fields: ['title', 'slug', 'created_at'],
    htmlField: 'body',
    hasStatus: true,
    deletable: true,
    relations: [
      { key: 'category', target: 'category', field: 'category_id', many: false },
      { key: 'author', target: 'user', field: 'author_id', many: false },
      { key: 'authors', target: 'user', field: 'author_ids', many: true },
    ],
    frontMatter: ({ required, date }) => ({ title: required('title'), date: date.optional() }),
    toFields: (fm, { dateOf }) => {
      const date = dateOf(fm.date);
      return { values: date ? { title: fm.title, created_at: date } : { title: fm.title } };
    },
    fromApi: (_get, { text, required }) => {
      const created = text('created_at');
      const date = created && !Number.isNaN(Date.parse(created)) ? new Date(created) : undefined;
      return { title: required('title'), date };
    },
    serverKept: STAMPS,
  },
  page: {
    folder: 'pages',
    fields: ['title', 'slug'],
    htmlField: 'content',
    hasStatus: true,
    deletable: true,
    relations: [],
    frontMatter: ({ required }) => ({ title: required('title') }),
    toFields: (fm) => ({ values: { title: fm.title } }),
    fromApi: (_get, { required }) => ({ title: required('title') }),
    serverKept: STAMPS,
  },
  breaking: {
    folder: 'breaking',
    fields: ['title', 'slug', 'url'],
    hasStatus: true,
    deletable: true,
    relations: [],
    frontMatter: ({ z, required }) => ({
      title: required('title'),
      url: z.url({ error: '`url` must be an absolute URL, e.g. https://example.com/live' }).optional(),
    }),
    toFields: (fm) => ({
      values: fm.url === undefined ? { title: fm.title } : { title: fm.title, url: fm.url },
    }),
    fromApi: (_get, { text, required, warn }) => {
      const url = text('url');
      const valid = url !== undefined && URL.canParse(url);
      if (url && !valid) warn(`url \`${url}\` is not an absolute URL; left out`);
      return { title: required('title'), url: valid ? url : undefined };
    },
    serverKept: STAMPS,
  },
};
