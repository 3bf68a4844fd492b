import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildIsCurrent, INPUTS, recordBuild, startBuild } from '../../scripts/build-stamp.mjs';

// `npm test` skips the build when dist/ is what a build would make now: a stale dist/ taken for
// current would test old code, so every way of going stale must be seen.

let root: string;
const write = async (file: string, text: string) => {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), text);
};
/** A checkout whose dist/ was just built. */
async function built(): Promise<void> {
  await rm(root, { recursive: true, force: true });
  for (const file of ['tsconfig.json', 'package.json', 'package-lock.json', 'scripts/bundle.mjs'])
    await write(file, `${file}\n`);
  await write('src/index.ts', 'export const a = 1;\n');
  await write('src/cli/main.ts', 'export const b = 2;\n');
  const inputs = startBuild(root);
  await write('dist/index.js', 'export const a = 1;\n');
  await write('dist/bundle/main.js', 'export const b = 2;\n');
  recordBuild(root, inputs);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cms-sync-build-stamp-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

it('holds for the dist/ a build just made, and for nothing else', async () => {
  await built();
  expect(buildIsCurrent(root)).toBe(true);
  await rm(path.join(root, 'node_modules'), { recursive: true });
  expect(buildIsCurrent(root)).toBe(false);
});

it.each([
  ['a source edited', () => write('src/cli/main.ts', 'export const b = 3;\n')],
  ['a source added', () => write('src/cli/new.ts', '\n')],
  ['a source removed', () => rm(path.join(root, 'src/cli/main.ts'))],
  [
    'a source renamed',
    () => rm(path.join(root, 'src/cli/main.ts')).then(() => write('src/cli/m.ts', 'export const b = 2;\n')),
  ],
  ['a dependency changed', () => write('package-lock.json', 'another lock\n')],
  ['the compiler settings changed', () => write('tsconfig.build.json', '{}\n')],
  ['the bundler changed', () => write('scripts/bundle.mjs', '// changed\n')],
  ['dist/ edited by hand', () => write('dist/bundle/main.js', 'export const b = 3;\n')],
  ['a file of dist/ removed', () => rm(path.join(root, 'dist/index.js'))],
  ['dist/ removed', () => rm(path.join(root, 'dist'), { recursive: true })],
  ['a file added to dist/', () => write('dist/extra.js', '\n')],
])('does not hold after %s', async (_what, change) => {
  await built();
  expect(buildIsCurrent(root)).toBe(true);
  await change();
  expect(buildIsCurrent(root)).toBe(false);
});

it('does not hold for a build that failed, or one whose sources changed while it ran', async () => {
  await built();
  startBuild(root);
  // The build fails here: nothing is recorded.
  expect(buildIsCurrent(root)).toBe(false);

  await built();
  const inputs = startBuild(root);
  await write('src/index.ts', 'export const a = 2;\n');
  recordBuild(root, inputs);
  expect(buildIsCurrent(root)).toBe(false);
});

it('counts every input the build reads', () => {
  expect(INPUTS).toEqual(
    expect.arrayContaining([
      'src',
      'tsconfig.json',
      'tsconfig.build.json',
      'package-lock.json',
      'scripts/bundle.mjs',
    ]),
  );
});
