import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { annotations, defuseLine, summaryMarkdown, type SyncJson } from '../../src/init/ci-report.js';
import { createProject, type Project } from '../e2e/harness.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

const ESC = '\u001b';

/**
 * What the Actions runner would take from one line of a step's output, as it parses it: a
 * `::name props::data` command once leading whitespace is trimmed, or the older `##[name]data`
 * anywhere in the line. Properties and data are unescaped as the runner does.
 */
function asRunnerSees(
  line: string,
): { name: string; props: Record<string, string>; data: string } | undefined {
  const trimmed = line.trimStart();
  const unescape = (s: string, property: boolean) => {
    let out = s.replace(/%0D/g, '\r').replace(/%0A/g, '\n');
    if (property) out = out.replace(/%3A/g, ':').replace(/%2C/g, ',');
    return out.replace(/%25/g, '%');
  };
  if (trimmed.startsWith('::')) {
    const end = trimmed.indexOf('::', 2);
    if (end < 0) return undefined;
    const [name = '', ...rest] = trimmed.slice(2, end).split(' ');
    const props: Record<string, string> = {};
    for (const pair of rest.join(' ').split(',').filter(Boolean)) {
      const at = pair.indexOf('=');
      if (at > 0) props[pair.slice(0, at)] = unescape(pair.slice(at + 1), true);
    }
    return { name, props, data: unescape(trimmed.slice(end + 2), false) };
  }
  const legacy = /##\[([^\]\s]+)[^\]]*\](.*)/.exec(line);
  return legacy ? { name: legacy[1]!, props: {}, data: legacy[2]! } : undefined;
}

/** The runner splits a step's output at CR, LF or CRLF. */
const runnerLines = (text: string) => text.split(/\r\n|\r|\n/);

describe('ci-report with hostile file names and slugs', () => {
  it(
    'lets no name act as a workflow command in the log, and keeps terminal escapes out of log and ' +
      'summary',
    async () => {
      const good = (title: string) => `---\ntitle: ${title}\n---\nbody\n`;
      const broken = '---\ntitle: [oops\n---\n';
      const names = {
        commandName: 'content/articles/::error::x.md',
        percent: 'content/articles/100%0A.md',
        newline: 'content/articles/a\n::warning::b.md',
        carriageReturn: 'content/articles/c\r::error file=x::c.md',
        brokenLegacy: `content/articles/bad##[error]${ESC}[31mred.md`,
        brokenNewline: 'content/articles/nl\n::add-mask::secret.md',
        brokenCommand: 'content/articles/::error::broken,1.md',
      };
      project = await createProject({
        [names.commandName]: good('One'),
        [names.percent]: good('Two'),
        [names.newline]: good('Three'),
        [names.carriageReturn]: good('Four'),
        'content/articles/ansi.md': `---\ntitle: Five\nslug: "red\\e[31mslug\\e[0m%0A::error::s"\n---\nbody\n`,
        [names.brokenLegacy]: broken,
        [names.brokenNewline]: broken,
        [names.brokenCommand]: broken,
      });
      const plan = await project.run(['plan', '--json']);
      expect(plan.code).toBe(1);
      // cms-sync's own output carries the raw names: that is what the workflow no longer lets into the log.
      expect(plan.stderr).toContain(`${ESC}[31m`);
      await project.write('plan.json', plan.stdout);
      await project.write('plan.log', plan.stderr);
      const summaryFile = path.join(project.dir, 'summary.md');
      await project.write('summary.md', '');

      const report = await project.run(['ci-report', 'plan.json', '--log', 'plan.log'], {
        env: { GITHUB_STEP_SUMMARY: summaryFile },
      });
      expect(report.code).toBe(0);
      const log = `${report.stdout}\n${report.stderr}`;
      expect(log).not.toContain(ESC);
      expect(log).not.toContain('\u009b');

      const commands = runnerLines(log)
        .map(asRunnerSees)
        .filter((c) => c !== undefined);
      // Exactly the annotations cms-sync meant: one per broken file (a slug with a control
      // character is refused, so the names with a line break, a carriage return or an escape
      // are broken files too), nothing from a name.
      expect(commands.map((c) => c.name)).toEqual(['error', 'error', 'error', 'error', 'error', 'error']);
      for (const c of commands) expect(c.props.title).toBe('cms-sync');
      const files = commands.map((c) => c.props.file).sort();
      // Escaped, not mangled: each annotation names its real file (terminal escapes removed).
      expect(files).toEqual(
        [
          names.brokenCommand,
          'content/articles/bad##[error]red.md',
          names.brokenNewline,
          names.newline,
          names.carriageReturn,
          'content/articles/ansi.md',
        ].sort(),
      );
      // The replayed log is there, made harmless, and still readable.
      expect(report.stderr).toContain('bad##\\[error]red.md:2:13: front matter is not valid YAML');

      const summary = await readFile(summaryFile, 'utf8');
      expect(summary).not.toContain(ESC);
      expect(summary).not.toContain('\r');
      expect(summary).toContain('`content/articles/ansi.md:3:1`');
      expect(summary).toContain('`content/articles/a ::warning::b.md:1:1`');
      // Each change is one table row: no name broke out of its cell or line.
      expect(summary.match(/^\| create \|/gm)).toHaveLength(2);
    },
  );

  it('escapes per the workflow command rules and defuses lines that are not its own commands', () => {
    const doc: SyncJson = {
      mode: 'plan',
      plan: {
        changes: [
          {
            action: 'drift',
            key: 'article/x',
            file: `content/${ESC}[31mred,1:2.md`,
            message: `100%\r\n::error::y`,
          },
        ],
        problems: [
          {
            file: 'content/::error::x.md',
            line: 1,
            column: 2,
            severity: 'error',
            message: `a%0A${ESC}]0;title\u0007b\nc`,
          },
        ],
      },
    };
    expect(annotations(doc)).toEqual([
      '::error file=content/%3A%3Aerror%3A%3Ax.md,line=1,col=2,title=cms-sync::a%250Ab%0Ac',
      '::warning file=content/red%2C1%3A2.md,title=cms-sync drift::100%25%0D%0A::error::y',
    ]);
    expect(summaryMarkdown(doc)).toContain(
      '| drift | `article/x` | `content/red,1:2.md` | 100% ::error::y |',
    );
    expect(summaryMarkdown(doc)).toContain('- `content/::error::x.md:1:2` a%0Ab c');

    expect(defuseLine('::error::x')).toBe('\\::error::x');
    expect(defuseLine(' \u00a0 ::warning file=a::b')).toBe('\\ \u00a0 ::warning file=a::b');
    expect(defuseLine('content/a.md:1:1: ##[error]x ##[add-mask]y')).toBe(
      'content/a.md:1:1: ##\\[error]x ##\\[add-mask]y',
    );
    expect(defuseLine(`${ESC}[1m${ESC}[31mred${ESC}[0m and \u0007bell`)).toBe('red and \uFFFDbell');
    expect(defuseLine('a file: with ::colons:: inside')).toBe('a file: with ::colons:: inside');
  });

  it('writes the summary and an annotation also when the run stopped before its JSON', async () => {
    project = await createProject({ 'sync.config.ts': 'export default { sync: { concurrency: 0 } };\n' });
    const plan = await project.run(['plan', '--json']);
    expect(plan.code).not.toBe(0);
    expect(plan.stdout).toBe('');
    await project.write('plan.json', plan.stdout);
    await project.write('plan.log', `${plan.stderr}::error::from a name\n`);
    const summaryFile = path.join(project.dir, 'summary.md');
    await project.write('summary.md', '');

    const report = await project.run(['ci-report', 'plan.json', '--log', 'plan.log'], {
      env: { GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(report.code).toBe(1);
    expect(report.stderr).toContain('plan.json is not the JSON of `cms-sync plan --json`: it is empty');
    const commands = runnerLines(report.stdout + report.stderr)
      .map(asRunnerSees)
      .filter((c) => c !== undefined);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({ name: 'error', props: { title: 'cms-sync' } });
    expect(commands[0]!.data).toContain('concurrency');
    const summary = await readFile(summaryFile, 'utf8');
    expect(summary).toMatch(/^### cms-sync stopped before its report$/m);
    expect(summary).toContain('concurrency');

    // The step that writes the JSON never ran (npm ci failed, or it was cancelled first).
    await project.remove('plan.json');
    await project.write('summary.md', '');
    const missing = await project.run(['ci-report', 'plan.json'], {
      env: { GITHUB_STEP_SUMMARY: summaryFile },
    });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe(
      '::error title=cms-sync::plan.json was not written: the step that writes it failed or was skipped.\n',
    );
    expect(await readFile(summaryFile, 'utf8')).toContain('plan.json was not written');
  });
});
