/**
 * `sync.config.ts` as `cms-sync init` writes it: every line that is commented out shows the
 * default, so a user changes only what differs and the file stays honest about the rest.
 */
export const CONFIG_TEMPLATE = `import { defineConfig } from 'cms-sync';

// Every option is optional; the commented values are the defaults. Hover an option in your
// editor for its documentation, or see the "Configuration" section of cms-sync's README.
export default defineConfig({
  // contentDir: 'content',
  // stateDir: '.cms-sync',           // commit .cms-sync/state.jsonl + state.log.jsonl, ignore the rest

  // Where the CMS is. Without a baseUrl (and without CMS_BASE_URL), cms-sync uses its local
  // CMS. The token is never written here: it is read from the variable named by tokenEnv.
  target: {
    // baseUrl: 'https://cms.example.com',
    // tokenEnv: 'CMS_API_TOKEN',
  },

  // The CMS fetches local images from a public URL: publicBaseUrl + the path under content/.
  // CMS_MEDIA_BASE_URL overrides it (the CI workflow sets it to the commit's raw URL).
  media: {
    // publicBaseUrl: 'https://raw.githubusercontent.com/OWNER/REPO/main/content/',
    // defaultSize: 'medium',          // small | medium | large
  },

  sync: {
    // concurrency: 4,
    // rps: 0,                         // requests per second ceiling; 0 = none
    // prune: false,                   // delete records whose file is gone (only our own)
    // maxDeletes: 20,                 // more planned deletes than this aborts before any call
  },

  // statusMap: { draft: 0, published: 1 },

  // resources: {
  //   article: { passThrough: ['tags'] },   // send extra front matter keys as they are
  //   user: { allowDelete: false },
  // },
});
`;
