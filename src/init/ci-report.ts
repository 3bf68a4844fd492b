/**
 * `plan --json` / `apply --json` output -> what GitHub Actions shows: workflow-command
 * annotations on the files (`::error file=…,line=…,col=…::message`) and a Markdown job summary.
 * Pure: the CLI reads the file and writes the results.
 *
 * File names, slugs and messages come from the repository, so from whoever opened the pull
 * request. The runner treats a line of a step's output as a command when, after leading
 * whitespace, it starts with `::`, or when it holds `##[` anywhere (the older syntax). So nothing
 * here prints such data raw: inside a command it is escaped, elsewhere it is defused, and terminal
 * escapes and other control characters are removed everywhere, the summary included.
 */
import { stripVTControlCharacters } from 'node:util';

interface ReportProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  severity: 'error' | 'warning';
}

interface ReportChange {
  action: string;
  key: string;
  file?: string | null;
  fields?: string[];
  message?: string;
  reason?: string;
  /** With `plan --json --diff`: each changed field and its readable diff. */
  values?: Array<{ field: string; cmsField?: string; diff?: string }>;
}

/** The parts of the `--json` document this report reads; anything else is ignored. */
export interface SyncJson {
  mode: string;
  target?: string;
  plan: {
    counts?: Record<string, number>;
    abort?: unknown;
    changes: ReportChange[];
    problems: ReportProblem[];
    uploads?: unknown[];
  };
  /** Only in `apply --json`: what was done, and the records that failed. */
  result?: { failures?: Array<{ key: string; file?: string; message: string }> };
  exitCode?: number;
}

/**
 * Today `--json` carries only the plan's own problems; a file that cannot be read (bad front
 * matter, a missing image) is reported on stderr only. So the workflow saves stderr too and
 * this reads its `path:line:column: message` lines back.
 */
export function problemsFromLog(text: string): ReportProblem[] {
  const out: ReportProblem[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^([^\s:][^:]*):(\d+):(\d+): (warning: )?(.+)$/.exec(line);
    if (!m || /^https?$/i.test(m[1]!)) continue;
    out.push({
      file: m[1]!,
      line: Number(m[2]),
      column: Number(m[3]),
      severity: m[4] ? 'warning' : 'error',
      message: m[5]!,
    });
  }
  return out;
}

/** The document's problems plus those of a log, each once. */
export function withLogProblems(doc: SyncJson, log: string | undefined): SyncJson {
  if (!log) return doc;
  const key = (p: ReportProblem) => `${p.file}:${p.line}:${p.column}:${p.message}`;
  const seen = new Set(doc.plan.problems.map(key));
  const extra = problemsFromLog(log).filter((p) => !seen.has(key(p)) && (seen.add(key(p)), true));
  return { ...doc, plan: { ...doc.plan, problems: [...extra, ...doc.plan.problems] } };
}

/** Checks the shape just enough to give a clear message instead of a TypeError later. */
export function parseSyncJson(text: string, file: string): SyncJson {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const why =
      text.trim() === ''
        ? 'it is empty (did the command fail before writing its JSON? see its log)'
        : (error as Error).message;
    throw new Error(`${file} is not the JSON of \`cms-sync plan --json\`: ${why}`, { cause: error });
  }
  const plan = (doc as { plan?: { changes?: unknown; problems?: unknown } } | null)?.plan;
  if (!plan || !Array.isArray(plan.changes) || !Array.isArray(plan.problems)) {
    throw new Error(
      `${file} is not the JSON of \`cms-sync plan --json\` or \`apply --json\`: it has no plan.changes and ` +
        `plan.problems.`,
    );
  }
  return doc as SyncJson;
}

// C0 and C1 controls except tab, LF and CR (which the escaping below turns into %0A and %0D).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Text without terminal escapes (colours, cursor moves, titles); any other control shown as U+FFFD. */
export function plainText(s: string): string {
  return stripVTControlCharacters(s).replace(CONTROL, '\uFFFD');
}

// GitHub's workflow-command escaping: data escapes % CR LF; properties also `:` and `,`.
export function escapeData(s: string): string {
  return plainText(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * One line of output that is not a command of ours, made unable to be one: `##[` anywhere and `::`
 * at the start get a backslash, which a reader still understands.
 */
export function defuseLine(line: string): string {
  const text = plainText(line)
    .replace(/[\r\n]/g, '\uFFFD')
    .replace(/##\[/g, '##\\[');
  return /^\s*::/.test(text) ? `\\${text}` : text;
}

/** A line or column as a number whatever the JSON held, so it cannot carry text into a command. */
const whole = (n: unknown) => (Number.isSafeInteger(n) && (n as number) > 0 ? (n as number) : 1);

/** The run's stderr as lines safe to print in a job log (the runner splits lines at CR, LF or CRLF). */
export function safeLogLines(log: string): string[] {
  const lines = log.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines.map(defuseLine);
}

/** GitHub shows this many annotations of each kind (error, warning) per step; it drops the rest. */
export const ANNOTATIONS_SHOWN = 10;

interface Annotation {
  level: 'error' | 'warning';
  file?: string;
  line?: number;
  column?: number;
  title: string;
  messages: string[];
}

/**
 * The annotations to make, one per file and title (all problems of a file in one, positioned at
 * the first), errors first, and how many files of each kind GitHub would not show.
 */
export function groupedAnnotations(doc: SyncJson): { shown: Annotation[]; hidden: Annotation[] } {
  const groups = new Map<string, Annotation>();
  const add = (entry: Omit<Annotation, 'messages'>, message: string) => {
    const key = `${entry.title}\0${entry.file ?? ''}`;
    const group = groups.get(key);
    if (!group) groups.set(key, { ...entry, messages: [message] });
    else {
      group.messages.push(message);
      if (entry.level === 'error') group.level = 'error';
    }
  };
  for (const p of doc.plan.problems) {
    const level = p.severity === 'warning' ? 'warning' : 'error';
    const where = { file: p.file, line: whole(p.line), column: whole(p.column) };
    add({ level, title: 'cms-sync', ...where }, `${where.line}:${where.column}: ${p.message}`);
  }
  for (const change of doc.plan.changes) {
    if (change.action !== 'drift' || !change.file) continue;
    add(
      { level: 'warning', title: 'cms-sync drift', file: change.file },
      change.message ?? `${change.key} changed in the CMS`,
    );
  }
  for (const failure of doc.result?.failures ?? []) {
    const where = failure.file ? { file: failure.file } : {};
    add({ level: 'error', title: 'cms-sync apply', ...where }, `${failure.key}: ${failure.message}`);
  }
  const shown: Annotation[] = [];
  const hidden: Annotation[] = [];
  const count = { error: 0, warning: 0 };
  for (const group of groups.values()) {
    count[group.level] += 1;
    (count[group.level] <= ANNOTATIONS_SHOWN ? shown : hidden).push(group);
  }
  return { shown, hidden };
}

/**
 * One annotation per file (its problems in one message), at most ANNOTATIONS_SHOWN of each kind:
 * GitHub drops the rest, so those files are listed in the job summary instead.
 */
export function annotations(doc: SyncJson): string[] {
  return groupedAnnotations(doc).shown.map((a) => {
    const at = a.file
      ? `file=${escapeProperty(a.file)},${a.line ? `line=${a.line},col=${a.column ?? 1},` : ''}`
      : '';
    // A lone problem's message reads as before; several are listed with their positions.
    const single = a.messages.length === 1 && a.title === 'cms-sync';
    const text = single ? a.messages[0]!.replace(/^\d+:\d+: /, '') : a.messages.join('\n');
    const title = a.messages.length > 1 ? `${a.title} (${a.messages.length})` : a.title;
    return `::${a.level} ${at}title=${escapeProperty(title)}::${escapeData(text)}`;
  });
}

/** One line of text in Markdown: no table cell break, no line break. */
const oneLine = (s: string) =>
  plainText(s)
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, ' ');

/**
 * Text from the run (file names, keys, messages) in the comment's Markdown, as text: HTML in it
 * (`<details><summary>`, which would fold away the rest of the comment) shows as typed, and an
 * `@team` in it names no one (a zero-width space after the `@`: GitHub pings no mention there).
 */
const cell = (s: string) =>
  oneLine(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(?=[\w-])/g, '@\u200b');

/** Backticks enough to open a code span or block that no run of backticks in `texts` closes. */
function fenceFor(texts: string[], least: number): string {
  const runs = texts.flatMap((text) => text.match(/`+/g) ?? []).map((run) => run.length);
  return '`'.repeat(Math.max(least - 1, ...runs) + 1);
}

/** A Markdown code span that a backtick in the text cannot close early. */
function code(s: string): string {
  // A code span shows HTML and `@` as typed already.
  const text = oneLine(s);
  const fence = fenceFor([text], 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The job summary: counts, a table of every change (unchanged records left out), problems. */
export function summaryMarkdown(doc: SyncJson): string {
  const title = doc.mode === 'apply' ? 'cms-sync apply' : 'cms-sync plan';
  const out = [`### ${title}${doc.target ? ` (${cell(doc.target)})` : ''}`, ''];
  const counts = Object.entries(doc.plan.counts ?? {}).filter(([, n]) => n > 0);
  out.push(counts.length ? counts.map(([name, n]) => `**${n}** ${name}`).join(' · ') : 'Nothing to do.', '');
  if (doc.plan.abort)
    out.push(
      `> **Aborted:** ${cell(typeof doc.plan.abort === 'string' ? doc.plan.abort : JSON.stringify(doc.plan.abort))}`,
      '',
    );
  const changes = doc.plan.changes.filter((c) => c.action !== 'unchanged');
  if (changes.length) {
    out.push('| action | record | file | fields / note |', '| --- | --- | --- | --- |');
    for (const c of changes) {
      const note = c.message ?? c.reason ?? (c.fields ?? []).join(', ');
      out.push(`| ${cell(c.action)} | ${code(c.key)} | ${c.file ? code(c.file) : ''} | ${cell(note)} |`);
    }
    out.push('');
  }
  if (doc.plan.problems.length) {
    out.push(`**Problems (${doc.plan.problems.length})**`, '');
    for (const p of doc.plan.problems) {
      const where = code(`${p.file}:${whole(p.line)}:${whole(p.column)}`);
      out.push(`- ${where} ${p.severity === 'warning' ? 'warning: ' : ''}${cell(p.message)}`);
    }
    out.push('');
  }
  const { hidden } = groupedAnnotations(doc);
  if (hidden.length) {
    out.push(
      `**Not annotated (${hidden.length})**: GitHub shows ${ANNOTATIONS_SHOWN} annotations of each kind, so these ` +
        'files are listed here only:',
      '',
      ...hidden.map((a) => `- ${a.file ? code(a.file) : 'the run'}: ${cell(a.messages.join('; '))}`),
      '',
    );
  }
  const failures = doc.result?.failures ?? [];
  if (failures.length) {
    out.push(`**Failed (${failures.length})**`, '');
    for (const f of failures)
      out.push(`- ${code(f.key)}${f.file ? ` (${code(f.file)})` : ''}: ${cell(f.message)}`);
    out.push('');
  }
  return out.join('\n');
}

/**
 * When the run stopped before it wrote its JSON (a bad config, a refused token, a crash): an
 * annotation and a summary that say why, from the last lines of its stderr.
 */
export function failureReport(
  reason: string,
  log: string | undefined,
): { annotation: string; summary: string } {
  const lines = safeLogLines(log ?? '').filter((line) => line.trim() !== '');
  const why = lines.length ? lines.slice(-10).join('\n') : reason;
  const out = ['### cms-sync stopped before its report', '', cell(reason), ''];
  if (lines.length) {
    const tail = lines.slice(-40);
    const fence = fenceFor(tail, 3);
    out.push('Its last messages:', '', fence, ...tail, fence, '');
  }
  return { annotation: `::error title=cms-sync::${escapeData(why)}`, summary: out.join('\n') };
}

/** The hidden line that marks cms-sync's comment on a pull request, so a later run edits it. */
export const COMMENT_MARKER = '<!-- cms-sync-plan -->';

/** GitHub refuses a comment longer than this (characters). */
export const COMMENT_LIMIT = 65_536;

const SYMBOLS: Record<string, string> = {
  create: '+',
  update: '~',
  delete: '-',
  drift: '!',
  adopt: '=',
  keep: '·',
};

/** Characters of one change's diff at most; a diff this long is cut with a pointer to `plan --diff`. */
const DIFF_CHARS = 6_000;
/** Diffs longer than this many lines are folded in `<details>`. */
const FOLD_LINES = 12;
/** Changes listed at most: a reviewer reads the first ones, the job summary has every one. */
const COMMENT_CHANGES = 50;

const escapeHtml = (s: string) =>
  plainText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One change's field diffs as the body of a ```diff block, cut at DIFF_CHARS. */
function changeDiff(change: ReportChange): string[] {
  const lines: string[] = [];
  for (const value of change.values ?? []) {
    const name = value.cmsField ?? value.field;
    const diff = plainText(value.diff ?? '').split('\n');
    if (diff.length === 1 && !diff[0]!.startsWith('@@')) lines.push(`${name}: ${diff[0]}`);
    else lines.push(`${name}:`, ...diff);
  }
  let size = 0;
  const kept = lines.findIndex((line) => (size += line.length + 1) > DIFF_CHARS);
  if (kept < 0) return lines;
  return [
    ...lines.slice(0, kept),
    `… ${lines.length - kept} more lines: run \`cms-sync plan --diff\` to see them all`,
  ];
}

/** One change as the comment lists it: a line, and its diff (folded when long). */
function changeBlock(change: ReportChange): string {
  const symbol = SYMBOLS[change.action] ?? '·';
  const fields = change.fields?.length ? ` (${change.fields.map(code).join(', ')})` : '';
  const note =
    change.action === 'drift' || change.action === 'keep'
      ? ` — ${cell(change.message ?? change.reason ?? '')}`
      : '';
  const head = `- \`${symbol}\` ${cell(change.action)} ${code(change.key)}${fields}${note}`;
  const diff = changeDiff(change);
  if (diff.length === 0) return head;
  const fence = fenceFor(diff, 3);
  const block = [`${fence}diff`, ...diff, fence];
  if (diff.length <= FOLD_LINES) return [head, '', ...block.map((l) => `  ${l}`)].join('\n');
  const summary = `<summary>diff of <code>${escapeHtml(change.key)}</code> (${diff.length} lines)</summary>`;
  return [head, '', `  <details>${summary}`, '', ...block.map((l) => `  ${l}`), '', '  </details>'].join(
    '\n',
  );
}

/**
 * The pull request comment: the marker, the plan's summary, the first changes with their diffs
 * (folded when long), a link to the job summary with everything. Never longer than `limit`:
 * changes that do not fit are counted, not shown.
 */
export function commentMarkdown(
  doc: SyncJson,
  options: { summaryUrl?: string; limit?: number } = {},
): string {
  const limit = options.limit ?? COMMENT_LIMIT;
  const link = options.summaryUrl ? `[job summary](${options.summaryUrl})` : 'job summary';
  const head = [COMMENT_MARKER, `### cms-sync plan${doc.target ? ` (${cell(doc.target)})` : ''}`, ''];
  const counts = Object.entries(doc.plan.counts ?? {}).filter(([, n]) => n > 0);
  head.push(counts.length ? counts.map(([name, n]) => `**${n}** ${name}`).join(' · ') : 'Nothing to do.', '');
  if (doc.plan.abort)
    head.push(
      `> **Aborted:** ${cell(typeof doc.plan.abort === 'string' ? doc.plan.abort : JSON.stringify(doc.plan.abort))}`,
      '',
    );
  const files = new Set(doc.plan.problems.map((p) => p.file)).size;
  if (files)
    head.push(
      `**${files} file${files === 1 ? ' has' : 's have'} problems**: see the annotations and the ${link}.`,
      '',
    );
  const changes = doc.plan.changes.filter((c) => c.action !== 'unchanged' && c.action !== 'forget');
  const foot = (more: number) =>
    more > 0
      ? [`… and ${more} more, see the ${link}.`, '']
      : options.summaryUrl
        ? [`Every detail: the ${link}.`, '']
        : [];
  const size = (lines: string[]) => lines.reduce((n, line) => n + line.length + 1, 0);
  // Room for the longest footer there can be.
  const reserve = size(foot(changes.length)) + 2;
  const body: string[] = [];
  let used = size(head) + reserve;
  let shown = 0;
  for (const change of changes.slice(0, COMMENT_CHANGES)) {
    const block = changeBlock(change);
    if (used + block.length + 1 > limit) break;
    body.push(block);
    used += block.length + 1;
    shown += 1;
  }
  const out = [...head, ...body, ...(body.length ? [''] : []), ...foot(changes.length - shown)];
  return out.join('\n');
}
