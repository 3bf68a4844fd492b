import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { annotations, summaryMarkdown, type SyncJson } from '../../src/init/ci-report.js';
import { createProject, png, type Project } from '../e2e/harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('cms-sync ci-report', () => {
  it('turns a real `plan --json` into annotations on the bad files and a job summary', async () => {
    project = await createProject({
      'content/categories/news.md': '---\nname: News\n---\n',
      'content/articles/good.md': '---\ntitle: Good\ncategory: news\n---\n![Chart](../images/chart.png)\n',
      'content/articles/broken.md': '---\ntitle: [oops\n---\nbody\n',
      'content/articles/missing-image.md': '---\ntitle: Missing\n---\nText.\n\n![Gone](../images/gone.png)\n',
      'content/images/chart.png': png(),
    });
    const plan = await project.run(['plan', '--json']);
    expect(plan.code).toBe(1);
    await project.write('plan.json', plan.stdout);
    await project.write('plan.log', plan.stderr);

    const summaryFile = path.join(project.dir, 'summary.md');
    await project.write('summary.md', '# earlier step\n');
    const report = await project.run(['ci-report', 'plan.json', '--log', 'plan.log'], {
      env: { GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(report.code).toBe(0);
    expect(report.stdout.trim().split('\n').sort()).toEqual([
      '::error file=content/articles/broken.md,line=2,col=13,title=cms-sync::front matter is not valid YAML: ' +
        'Flow sequence in block collection must be sufficiently indented and end with a ]',
      '::error file=content/articles/missing-image.md,line=6,col=1,title=cms-sync::image `../images/gone.png` not ' +
        'found (looked for content/images/gone.png): fix the path or add the file',
    ]);

    const summary = await readFile(summaryFile, 'utf8');
    expect(summary.startsWith('# earlier step\n### cms-sync plan')).toBe(true);
    expect(summary).toContain('**2** create · **1** upload');
    expect(summary).toContain('| action | record | file | fields / note |');
    expect(summary).toMatch(/\| create \| `article\/good` \| `content\/articles\/good\.md` \| .*body.* \|/);
    expect(summary).toMatch(/\| create \| `category\/news` \| `content\/categories\/news\.md` \|/);
    expect(summary).toContain('- `content/articles/broken.md:2:13` front matter is not valid YAML');

    // The same report for apply: the good records are written, the bad files annotated.
    const apply = await project.run(['apply', '--json']);
    expect(apply.code).toBe(1);
    await project.write('apply.json', apply.stdout);
    await project.write('apply.log', apply.stderr);
    await project.write('summary.md', '');
    const applied = await project.run(['ci-report', 'apply.json', '--log', 'apply.log'], {
      env: { GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('::error file=content/articles/broken.md,line=2,col=13,');
    const applySummary = await readFile(summaryFile, 'utf8');
    expect(applySummary).toMatch(/^### cms-sync apply/);
    expect(applySummary).toMatch(/\| create \| `article\/good` \|/);
    expect(await project.records('article')).toEqual([expect.objectContaining({ title: 'Good' })]);
  });

  it('fails with a clear message when the plan never wrote its JSON', async () => {
    project = await createProject({ 'plan.json': '' });
    const report = await project.run(['ci-report', 'plan.json']);
    expect(report.code).toBe(1);
    expect(report.stderr).toContain('plan.json is not the JSON of `cms-sync plan --json`: it is empty');
  });

  it('escapes what would break a workflow command, and warns about drift', () => {
    const doc: SyncJson = {
      mode: 'apply',
      plan: {
        changes: [
          {
            action: 'drift',
            key: 'article/a',
            file: 'content/articles/a,b.md',
            message: 'changed in the CMS: title',
          },
        ],
        problems: [
          {
            file: 'content/x:y.md',
            line: 2,
            column: 4,
            severity: 'warning',
            message: '100% sure\nsecond line',
          },
        ],
      },
      result: {
        failures: [
          { key: 'page/about', file: 'content/pages/about.md', message: 'The CMS rejected edit (HTTP 422).' },
        ],
      },
    };
    expect(annotations(doc)).toEqual([
      '::warning file=content/x%3Ay.md,line=2,col=4,title=cms-sync::100%25 sure%0Asecond line',
      '::warning file=content/articles/a%2Cb.md,title=cms-sync drift::changed in the CMS: title',
      '::error file=content/pages/about.md,title=cms-sync apply::page/about: The CMS rejected edit (HTTP 422).',
    ]);
    expect(summaryMarkdown(doc)).toContain(
      '- `page/about` (`content/pages/about.md`): The CMS rejected edit (HTTP 422).',
    );
    expect(summaryMarkdown(doc)).toContain(
      '| drift | `article/a` | `content/articles/a,b.md` | changed in the CMS: title |',
    );
  });
});
