import { defineConfig } from 'cms-sync';

// The sample site's configuration. With no CMS_BASE_URL set, cms-sync syncs into the local CMS
// (`.cms-sync/local-cms/`) and serves content/ to it, so no public media URL is needed here.
export default defineConfig({
  contentDir: 'content',
  media: { defaultSize: 'medium' },
  sync: { concurrency: 4, maxDeletes: 20 },
  statusMap: { draft: 0, published: 1 },
});
