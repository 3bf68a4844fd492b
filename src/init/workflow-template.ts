/**
 * `.github/workflows/cms-sync.yml` as `cms-sync init` writes it. README "Continuous
 * integration" explains it line by line; keep the two in step.
 *
 * Design choices (the why, since YAML cannot carry much):
 * - `plan` on pull requests posts the plan to the job summary and annotates bad files, so a
 *   reviewer sees what merging will do to the CMS.
 * - `apply` on main runs in one concurrency group with cancel-in-progress off: two applies
 *   never overlap on one state, and a queued run waits for the one in flight.
 * - `apply` checks out the branch tip, not the pushed commit, so a queued run starts from the
 *   state.json the previous run committed.
 * - The state is committed back with `[skip ci]` even when apply fails part-way: it records
 *   what did reach the CMS, so the next run neither repeats nor loses it.
 */
export const WORKFLOW_TEMPLATE = `# cms-sync: plan on pull requests, apply on main. Written by \`cms-sync init\`.
# Needs: cms-sync in package.json devDependencies (npm i -D cms-sync) and a package-lock.json;
# repository secret CMS_API_TOKEN; repository variable CMS_BASE_URL (Settings > Secrets and
# variables > Actions). Images are uploaded from the commit's raw URL (public repositories);
# for a private one set the variable CMS_MEDIA_BASE_URL to a URL your CMS can fetch content/ from.
name: cms-sync

on:
  pull_request:
    paths: ['content/**', 'sync.config.*', '.cms-sync/state.json', '.github/workflows/cms-sync.yml']
  push:
    branches: [main]
    paths: ['content/**', 'sync.config.*', '.github/workflows/cms-sync.yml']
  workflow_dispatch:

permissions:
  contents: read

env:
  CMS_BASE_URL: \${{ vars.CMS_BASE_URL }}
  CMS_API_TOKEN: \${{ secrets.CMS_API_TOKEN }}

jobs:
  plan:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: Plan
        env:
          CMS_MEDIA_BASE_URL: \${{ vars.CMS_MEDIA_BASE_URL || format('https://raw.githubusercontent.com/{0}/{1}/content/', github.repository, github.event.pull_request.head.sha) }}
        # The plan's own exit code decides the step; ci-report only turns the JSON (and the
        # stderr, which names unreadable files) into annotations and a job-summary table.
        run: |
          status=0
          npx cms-sync plan --json > plan.json 2> >(tee plan.log >&2) || status=$?
          npx cms-sync ci-report plan.json --log plan.log || true
          exit $status

  apply:
    if: github.event_name == 'push' || github.event_name == 'workflow_dispatch'
    runs-on: ubuntu-latest
    # One apply at a time on one state; a queued run waits instead of being cancelled midway.
    concurrency:
      group: cms-sync-apply-\${{ github.ref }}
      cancel-in-progress: false
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v4
        with:
          ref: \${{ github.ref }}
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: Apply
        run: |
          export CMS_MEDIA_BASE_URL="\${{ vars.CMS_MEDIA_BASE_URL }}"
          if [ -z "$CMS_MEDIA_BASE_URL" ]; then
            CMS_MEDIA_BASE_URL="https://raw.githubusercontent.com/\${{ github.repository }}/$(git rev-parse HEAD)/content/"
          fi
          status=0
          npx cms-sync apply --json > apply.json 2> >(tee apply.log >&2) || status=$?
          npx cms-sync ci-report apply.json --log apply.log || true
          exit $status
      - name: Commit state
        # Also after a failed apply: the state records what did reach the CMS.
        if: always()
        run: |
          git add .cms-sync/state.json 2>/dev/null || exit 0
          git diff --cached --quiet && exit 0
          git config user.name 'github-actions[bot]'
          git config user.email '41898282+github-actions[bot]@users.noreply.github.com'
          git commit -m 'cms-sync: update state [skip ci]'
          git pull --rebase origin "\${GITHUB_REF_NAME}"
          git push origin "HEAD:\${GITHUB_REF_NAME}"
`;
