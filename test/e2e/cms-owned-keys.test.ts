import { afterEach, describe, expect, it } from 'vitest';
import { createProject, type Project } from './harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe("front matter `id` (the old site's) under passThrough", () => {
  it("is never sent: the record keeps the CMS's own id, and the plan says why at the key", async () => {
    project = await createProject({
      'sync.config.ts': "export default { resources: { article: { passThrough: ['id', 'subtitle'] } } };\n",
      'content/articles/post.md': '---\ntitle: A post\nid: 500\nsubtitle: More\n---\n\nText.\n',
    });
    const apply = await project.run(['apply']);
    expect(apply.code).toBe(0);
    expect(apply.stderr + apply.stdout).toContain(
      'content/articles/post.md:3:1: warning: front matter `id` is not sent to the CMS, which sets `id` itself',
    );
    const [record] = await project.records('article');
    expect(record).toMatchObject({ title: 'A post', subtitle: 'More' });
    expect(record!.id).not.toBe(500);
  });
});
