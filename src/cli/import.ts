import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { importContent, type ImportContentOptions } from '../sync/import-content.js';
import { writeLine, type CliIO, projectDirOf, type SetExit } from './io.js';
import { createCliReporter } from './reporter.js';

interface ImportFlags {
  out?: string;
  force?: boolean;
  ghostUrl?: string;
  linkPath?: string;
}

const HELP = `
Converts another CMS's export, or a static site's folder, into content/ files, which
\`cms-sync plan\` and \`apply\` then publish. Nothing is sent to any CMS. Existing files are
never overwritten without --force.

  wordpress FILE.xml   WXR 1.1/1.2 (Tools > Export): posts -> articles, pages, categories,
                       authors -> users
  ghost FILE.json      Ghost export (Settings > Labs > Export): posts, pages, tags ->
                       categories, users
  hugo SITE_DIR        A Hugo site (hugo.toml/config.toml/hugo.yaml or config/_default/):
                       section files and page bundles -> articles, top-level ones -> pages,
                       index.<lang>.md and <name>.<lang>.md -> <slug>-<lang> translations,
                       shortcodes expanded, images from bundles and static/ copied
  jekyll SITE_DIR      A Jekyll site (_config.yml): _posts/ (YYYY-MM-DD-slug.md, also
                       <category>/_posts/) -> articles, _drafts/ and published: false ->
                       drafts, pages with front matter -> pages, Liquid expanded, images
                       from assets/ or anywhere in the site copied.
                       An Eleventy site (eleventy.config.js/.mjs/.cjs or .eleventy.js, its
                       dir.input read as text): posts/, post/, blog/ or a folder tagged
                       \`posts\` -> articles, other Markdown -> pages, {% image "src", "alt" %}
                       -> an image
Static sites: categories -> categories/, authors (with _data/authors.yml or data/authors.yaml)
-> users/, images -> content/media/<path on the old site>; template syntax left as text is
listed with its file and line (map it under markdown.shortcodes in sync.config.ts).

Front matter kept beyond what cms-sync sends (excerpt, featured_image, featured_image_alt,
featured_image_caption, tags, author, authors, parent, sticky, featured, description, lang):
plan warns about these keys unless resources.<resource>.passThrough lists them. Embeds are kept
as raw HTML (YouTube, Vimeo and X URLs as {{< youtube >}}-style shortcodes); links to imported
posts and pages become --link-path paths; the report lists what was left out.

Examples:
  $ cms-sync import wordpress export.xml
  $ cms-sync import ghost ghost-export.json --ghost-url https://old.example.com
  $ cms-sync import hugo ../my-hugo-site
  $ cms-sync import jekyll ../my-jekyll-site
`;

const SOURCES = {
  wordpress: { name: 'WordPress export', site: false },
  ghost: { name: 'Ghost export', site: false },
  hugo: { name: 'Hugo site', site: true },
  jekyll: { name: 'Jekyll/Eleventy site', site: true },
} as const;

function absoluteUrl(value: string): string {
  if (!/^https?:\/\/[^/]/i.test(value) || !URL.canParse(value))
    throw new InvalidArgumentError(`Expected \`--ghost-url\` to be an http(s) URL, got \`${value}\`.`);
  return value;
}

function linkPath(value: string): string {
  if (!value.includes('{slug}'))
    throw new InvalidArgumentError(
      `Expected \`--link-path\` to contain {slug}, e.g. /blog/{slug}/, got \`${value}\`.`,
    );
  return value;
}

export function registerImport(program: Command, io: CliIO, setExit: SetExit): void {
  program
    .command('import')
    .description('convert a WordPress, Ghost, Hugo or Jekyll/Eleventy site into content/ files')
    .argument('<source>', 'wordpress, ghost, hugo or jekyll')
    .argument('<file>', 'the export file, or the site folder for hugo and jekyll')
    .option('--out <dir>', 'content folder to write into (default: the config contentDir, content/)')
    .option('--force', 'overwrite files that already exist')
    .option(
      '--ghost-url <url>',
      'Ghost: the old site address, put where the export says __GHOST_URL__',
      absoluteUrl,
    )
    .option(
      '--link-path <pattern>',
      'the path a link to an imported post or page becomes (default /{folder}/{slug}/)',
      linkPath,
    )
    .addHelpText('after', HELP)
    .action(async (source: string, file: string, flags: ImportFlags) => {
      const projectDir = projectDirOf(io, program.opts().cwd);
      const { report, contentDir, ms } = await importContent(
        {
          projectDir,
          env: io.env,
          source: source as ImportContentOptions['source'],
          file,
          ...(flags.out ? { out: flags.out } : {}),
          force: flags.force === true,
          ...(flags.ghostUrl ? { ghostUrl: flags.ghostUrl } : {}),
          ...(flags.linkPath ? { linkPath: flags.linkPath } : {}),
        },
        createCliReporter(io, {}, { items: 'Importing' }),
      );
      const where = path.relative(projectDir, contentDir) || '.';
      const seconds = (ms / 1000).toFixed(1);
      writeLine(
        io.stdout,
        report.format(
          `Imported ${SOURCES[source as keyof typeof SOURCES]?.name ?? source} ${file} into ${where}/ in ${seconds}s:`,
        ),
      );
      writeLine(io.stdout, 'Next: `cms-sync plan` shows what apply would send.');
      if (report.failures.length) setExit(1);
    });
}
