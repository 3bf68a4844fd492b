import { describe, expect, it } from 'vitest';
import { readDataModule } from '../../src/migrate/js-data.js';

describe('readDataModule: the data a JavaScript data file exports, read without running it', () => {
  it('reads the literal shapes sites write', () => {
    const data = { tags: ['posts'], layout: 'post.njk' };
    for (const source of [
      'module.exports = {\n  tags: ["posts"],\n  layout: "post.njk",\n};\n',
      "'use strict';\n// posts\nmodule.exports = { 'tags': ['posts'], \"layout\": `post.njk` }",
      'export default { tags: ["posts"], layout: "post.njk" };',
      'module.exports = () => ({ tags: ["posts"], layout: "post.njk" });',
      'module.exports = (data) => {\n  return { tags: ["posts"], layout: "post.njk" };\n};',
      'module.exports = function () {\n  return { tags: ["posts"], layout: "post.njk" };\n};',
      'export default async function data() { return { tags: ["posts"], layout: "post.njk" } }',
      'const data = { tags: ["posts"], layout: "post.njk" };\nexport default data;',
      '/* module.exports = { tags: ["notes"] } */\nmodule.exports = { tags: ["posts"], layout: "post.njk" };',
      // No semicolons: a statement after the literal ends it.
      'module.exports = {\n  tags: ["posts"],\n  layout: "post.njk"\n}\nmodule.exports.extra = 1\n',
    ]) {
      expect(readDataModule(source), source).toEqual({ data, skipped: [] });
    }
  });

  it('reads strings, numbers and nesting; passes over, and names, what is not data', () => {
    const read = readDataModule(
      [
        'const slug = (s) => s.toLowerCase();',
        'module.exports = {',
        '  tags: "posts",',
        "  title: 'It\\'s \"here\" \\u00e9\\n',",
        '  weight: -1.5e2, count: 0x1F, draft: false, none: null,',
        '  eleventyNavigation: { key: "Blog", order: 2 },',
        '  eleventyComputed: { permalink: (data) => `/blog/${slug(data.title)}/` },',
        '  date: new Date("2024-01-01"),',
        '  list: ["a", other],',
        '  shorthand,',
        '  get later() { return "x, }"; },',
        '  ...more,',
        '  "quoted key": "v", // trailing',
        '};',
      ].join('\n'),
    );
    expect(read).toEqual({
      data: {
        tags: 'posts',
        title: 'It\'s "here" é\n',
        weight: -150,
        count: 31,
        draft: false,
        none: null,
        eleventyNavigation: { key: 'Blog', order: 2 },
        eleventyComputed: {},
        'quoted key': 'v',
      },
      skipped: ['eleventyComputed.permalink', 'date', 'list', 'shorthand', 'later', '...'],
    });
  });

  it('is not misled by regular expressions, comments or strings that hold brackets and quotes', () => {
    const source = [
      'const path = "/*";',
      'module.exports = {',
      '  match: /["}{]/g, // "}"',
      '  url: "https://example.org/a//b", /* } */',
      "  tags: ['posts'],",
      '};',
    ].join('\n');
    expect(readDataModule(source)).toEqual({
      data: { url: 'https://example.org/a//b', tags: ['posts'] },
      skipped: ['match'],
    });
  });

  it('says why when the export is not a literal', () => {
    expect(readDataModule('module.exports = require("./shared.js");')).toEqual({
      unreadable: 'what it exports is not an object written out as a literal',
    });
    expect(readDataModule('module.exports = "posts";')).toEqual({
      unreadable: 'what it exports is not an object written out as a literal',
    });
    expect(readDataModule('module.exports = { tags: ["posts"] } + x;')).toEqual({
      unreadable: 'what it exports is not an object written out as a literal',
    });
    expect(readDataModule('export default shared;')).toEqual({
      unreadable: 'it exports `shared`, which is not declared as a literal',
    });
    expect(readDataModule('const x = 1;')).toEqual({
      unreadable: 'it exports nothing as `module.exports =` or `export default`',
    });
    expect(readDataModule('module.exports = { tags: ["posts"] ')).toEqual({
      unreadable: 'it is not JavaScript that can be read (Unexpected token (1:35))',
    });
    expect(readDataModule(`module.exports = ${'['.repeat(100_000)}`)).toHaveProperty('unreadable');
  });
});
