import { warmUpReading } from '../records/warm-up-reading.js';
import { recordIndex } from '../state/record-index.js';
import type { Session } from '../sync/session.js';

/**
 * What the first save's pass would otherwise pay for, done while watch waits for that save. A
 * first sync that passed every file over (see What a run looks at) reads none of the state's record
 * lines, parses no front matter and renders nothing; a save's pass finds the saved file's records
 * through the record index, which reads every record line, then parses and renders the file. Done
 * here, the first save costs what the next ones do.
 */
export async function warmUp(session: Session): Promise<void> {
  if (session.store) recordIndex(session.store.state);
  const render = await warmUpReading(session.config.limits);
  // Rendered once, so that the renderer's first document is not the writer's.
  render?.renderMarkdown('# Warm\n\nWarm *up*.\n', {
    defaultSize: session.config.media.defaultSize,
    limits: session.config.limits,
  });
}
