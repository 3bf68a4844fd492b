/**
 * `plan --json` / `apply --json` output -> what GitHub Actions shows: workflow-command
 * annotations on the files (`::error file=…,line=…,col=…::message`) and a Markdown job summary.
 * Pure: the CLI reads the file and writes the results.
 */

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
    out.push({ file: m[1]!, line: Number(m[2]), column: Number(m[3]), severity: m[4] ? 'warning' : 'error', message: m[5]! });
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
    const why = text.trim() === '' ? 'it is empty (did the command fail before writing its JSON? see its log)' : (error as Error).message;
    throw new Error(`${file} is not the JSON of \`cms-sync plan --json\`: ${why}`, { cause: error });
  }
  const plan = (doc as { plan?: { changes?: unknown; problems?: unknown } } | null)?.plan;
  if (!plan || !Array.isArray(plan.changes) || !Array.isArray(plan.problems)) {
    throw new Error(`${file} is not the JSON of \`cms-sync plan --json\` or \`apply --json\`: it has no plan.changes and plan.problems.`);
  }
  return doc as SyncJson;
}

// GitHub's workflow-command escaping: data escapes % CR LF; properties also `:` and `,`.
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** One annotation per file problem, and a warning per drifted record (it needs a human). */
export function annotations(doc: SyncJson): string[] {
  const lines = doc.plan.problems.map((p) => {
    const level = p.severity === 'warning' ? 'warning' : 'error';
    return `::${level} file=${escapeProperty(p.file)},line=${p.line},col=${p.column},title=cms-sync::${escapeData(p.message)}`;
  });
  for (const change of doc.plan.changes) {
    if (change.action !== 'drift' || !change.file) continue;
    lines.push(`::warning file=${escapeProperty(change.file)},title=cms-sync drift::${escapeData(change.message ?? `${change.key} changed in the CMS`)}`);
  }
  for (const failure of doc.result?.failures ?? []) {
    const where = failure.file ? `file=${escapeProperty(failure.file)},` : '';
    lines.push(`::error ${where}title=cms-sync apply::${escapeData(`${failure.key}: ${failure.message}`)}`);
  }
  return lines;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** The job summary: counts, a table of every change (unchanged records left out), problems. */
export function summaryMarkdown(doc: SyncJson): string {
  const title = doc.mode === 'apply' ? 'cms-sync apply' : 'cms-sync plan';
  const out = [`### ${title}${doc.target ? ` (${cell(doc.target)})` : ''}`, ''];
  const counts = Object.entries(doc.plan.counts ?? {}).filter(([, n]) => n > 0);
  out.push(counts.length ? counts.map(([name, n]) => `**${n}** ${name}`).join(' · ') : 'Nothing to do.', '');
  if (doc.plan.abort) out.push(`> **Aborted:** ${cell(typeof doc.plan.abort === 'string' ? doc.plan.abort : JSON.stringify(doc.plan.abort))}`, '');
  const changes = doc.plan.changes.filter((c) => c.action !== 'unchanged');
  if (changes.length) {
    out.push('| action | record | file | fields / note |', '| --- | --- | --- | --- |');
    for (const c of changes) {
      const note = c.message ?? c.reason ?? (c.fields ?? []).join(', ');
      out.push(`| ${c.action} | \`${cell(c.key)}\` | ${c.file ? `\`${cell(c.file)}\`` : ''} | ${cell(note)} |`);
    }
    out.push('');
  }
  if (doc.plan.problems.length) {
    out.push(`**Problems (${doc.plan.problems.length})**`, '');
    for (const p of doc.plan.problems) out.push(`- \`${cell(p.file)}:${p.line}:${p.column}\` ${p.severity === 'warning' ? 'warning: ' : ''}${cell(p.message)}`);
    out.push('');
  }
  const failures = doc.result?.failures ?? [];
  if (failures.length) {
    out.push(`**Failed (${failures.length})**`, '');
    for (const f of failures) out.push(`- \`${cell(f.key)}\`${f.file ? ` (\`${cell(f.file)}\`)` : ''}: ${cell(f.message)}`);
    out.push('');
  }
  return out.join('\n');
}
