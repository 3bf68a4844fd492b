import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The shape of src/ as its imports draw it: every relative import, static, dynamic or type-only
// (a type-only cycle still ties two files together for a reader and for the next refactor).
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each file of src/ (relative, posix) and the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.resolve(path.dirname(file), name.replace(/\.js$/, '.ts')));
    graph.set(relative(file), [...new Set(targets.map(relative))]);
  }
  return graph;
}

function relative(file: string): string {
  return path.relative(SRC, file).split(path.sep).join('/');
}

/** Every import cycle, each as the files around it (found by a depth-first walk). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const cycle = stack.slice(stack.indexOf(next));
        found.set([...cycle].sort().join(' '), [...cycle, next]);
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return [...found.values()];
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads every file and sees the imports between them', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get('cli/main.ts')).toContain('cli/plan.ts');
  });

  it('finds a cycle when there is one (the walk itself is sound)', () => {
    const looped = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(looped)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('has no import cycle', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has nothing outside cli/ import from cli/: the CLI sits on top, the library and watch below it', () => {
    const upward = [...graph]
      .filter(([file]) => !file.startsWith('cli/'))
      .flatMap(([file, imports]) => imports.filter((i) => i.startsWith('cli/')).map((i) => `${file} → ${i}`));
    expect(upward).toEqual([]);
  });
});
