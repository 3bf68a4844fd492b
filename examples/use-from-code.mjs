// cms-sync from a build script: plan, and apply when there is something to do.
//   node examples/use-from-code.mjs [project-dir]
// With CMS_BASE_URL and CMS_API_TOKEN set it syncs to that CMS; without, to the embedded local one.
import { plan, sync } from 'cms-sync';

const projectDir = process.argv[2] ?? process.cwd();

// Events arrive as the run goes; the library itself prints nothing.
const reporter = (event) => {
  if (event.type === 'problem') {
    const { file, line, column, message } = event.problem;
    console.error(`${file}:${line}:${column}: ${message}`);
  }
};

const planned = await plan({ projectDir, reporter });
const { create, update, delete: deletes, upload } = planned.plan.counts;
console.log(
  `Plan for ${planned.target}: ${create} to create, ${update} to update, ${deletes} to delete, ${upload} uploads`,
);

if (create + update + deletes + upload > 0) {
  const synced = await sync({ projectDir, reporter });
  const { created, updated, deleted, uploaded, failures } = synced.result;
  console.log(`Synced: ${created} created, ${updated} updated, ${deleted} deleted, ${uploaded} uploaded`);
  for (const failure of failures) console.error(`${failure.file}: ${failure.message}`);
  process.exitCode = synced.exitCode;
} else {
  console.log('Nothing to do.');
}
