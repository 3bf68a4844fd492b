// The part of zod cms-sync uses, and nothing else: what `zod()` (src/zod.ts) returns. The CLI's
// bundle builds this file into one file of its own (scripts/bundle.mjs), which carries only these
// functions and what they need: zod's own entry loads many files, every locale among them.
// A function missing here is a type error where it is used.
export {
  array,
  boolean,
  custom,
  email,
  enum,
  literal,
  number,
  object,
  partialRecord,
  preprocess,
  record,
  strictObject,
  string,
  toJSONSchema,
  union,
  unknown,
  url,
} from 'zod';
