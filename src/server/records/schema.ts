import type { Resource } from '../../resources.js';

/** How a field's value is checked on add/edit. */
export type FieldKind =
  | 'text' // a string (or null for an optional field)
  | 'html' // a string whose dynamic-block elements are checked
  | 'integer'
  | 'timestamp' // an ISO 8601 string
  | 'reference' // the id of a record of `references`, or null
  | 'url'; // a link a reader may follow: http(s) or relative

export interface FieldSpec {
  kind: FieldKind;
  required?: boolean;
  /** Set by the server; a client cannot write it. */
  server?: boolean;
  references?: Resource;
  default?: unknown;
}

export interface ResourceSchema {
  fields: Readonly<Record<string, FieldSpec>>;
  /** The field a person knows a record by, shown on the HTML page. */
  label: 'title' | 'name';
  /** Articles keep any other field a client sends, as-is; the other resources refuse them. */
  customFields: boolean;
}

const id: FieldSpec = { kind: 'integer', server: true };
const timestamps = {
  created_at: { kind: 'timestamp' },
  updated_at: { kind: 'timestamp', server: true },
} satisfies Record<string, FieldSpec>;
const status: FieldSpec = { kind: 'integer', default: 0 };

export const SCHEMAS: Readonly<Record<Resource, ResourceSchema>> = {
  article: {
    label: 'title',
    customFields: true,
    fields: {
      id,
      title: { kind: 'text', required: true },
      slug: { kind: 'text' },
      body: { kind: 'html' },
      status,
      category_id: { kind: 'reference', references: 'category' },
      author_id: { kind: 'reference', references: 'user' },
      ...timestamps,
    },
  },
  page: {
    label: 'title',
    customFields: false,
    fields: {
      id,
      title: { kind: 'text', required: true },
      slug: { kind: 'text' },
      content: { kind: 'html' },
      status,
      ...timestamps,
    },
  },
  category: {
    label: 'name',
    customFields: false,
    fields: {
      id,
      name: { kind: 'text', required: true },
      slug: { kind: 'text' },
      description: { kind: 'text' },
      parent_id: { kind: 'reference', references: 'category' },
      ...timestamps,
    },
  },
  breaking: {
    label: 'title',
    customFields: false,
    fields: {
      id,
      title: { kind: 'text', required: true },
      slug: { kind: 'text' },
      url: { kind: 'url' },
      status,
      ...timestamps,
    },
  },
  user: {
    label: 'name',
    customFields: false,
    fields: {
      id,
      name: { kind: 'text', required: true },
      slug: { kind: 'text' },
      email: { kind: 'text' },
      role: { kind: 'text' },
      bio: { kind: 'text' },
      ...timestamps,
    },
  },
  // Media records are made only by upload_from_url; every field is the server's.
  media: {
    label: 'title',
    customFields: false,
    fields: {
      id,
      url: { kind: 'text', server: true },
      source_url: { kind: 'text', server: true },
      filename: { kind: 'text', server: true },
      mime: { kind: 'text', server: true },
      size: { kind: 'integer', server: true },
      sha256: { kind: 'text', server: true },
      title: { kind: 'text', server: true },
      alt: { kind: 'text', server: true },
      created_at: { kind: 'timestamp', server: true },
    },
  },
};

/** Names a custom field may have: safe inside `order_by` and readable in a URL. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Whether `queryableFields` would hold `name`, without listing them all: a schema field costs no scan. */
export function isQueryable(
  resource: Resource,
  records: Iterable<Record<string, unknown>>,
  name: string,
): boolean {
  const schema = SCHEMAS[resource];
  if (Object.hasOwn(schema.fields, name)) return true;
  if (!schema.customFields) return false;
  for (const record of records) if (Object.hasOwn(record, name)) return true;
  return false;
}

/**
 * The field names a `get` may use in `fields`, `filters` and `order_by`: the schema's, plus, for
 * articles, every custom field some article currently holds (an article field nobody has is
 * most likely a typo, and an error says so rather than silently matching nothing).
 */
export function queryableFields(resource: Resource, records: Iterable<Record<string, unknown>>): Set<string> {
  const schema = SCHEMAS[resource];
  const names = new Set(Object.keys(schema.fields));
  if (schema.customFields) {
    for (const record of records) for (const name of Object.keys(record)) names.add(name);
  }
  return names;
}
