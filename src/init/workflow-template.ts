/**
 * `.github/workflows/cms-sync.yml` as `cms-sync init` writes it. README "Continuous
 * integration" explains it line by line; keep the two in step.
 *
 * Design choices (the why, since YAML cannot carry much):
 * - `plan` on pull requests posts the plan to the job summary, annotates bad files (one
 *   annotation per file), and keeps one comment on the pull request with the summary and the first
 *   diffs, so a reviewer sees what merging will do to the CMS where they already look. Plans only
 *   read the CMS: they run side by side and never wait for an apply.
 * - Only the plan job may write to pull requests (`pull-requests: write`), and only its Report
 *   step gets the GitHub token, which ci-report itself uses: no third-party action sees it.
 * - `apply` runs only on the default branch (a push, or a manual run started from it): a manual
 *   run from any other branch would publish content nobody reviewed.
 * - Every apply to the one CMS shares one concurrency group, whatever the branch, with
 *   cancel-in-progress off: two applies never overlap on one state, and a queued run waits for
 *   the one in flight. GitHub keeps only the newest queued run; since it applies the branch tip,
 *   the runs it replaced lose nothing. The group is a fixed name, not the URL, which may carry credentials and
 *   would be shown in the run's page.
 * - `apply` checks out the branch tip, not the pushed commit, so a queued run starts from the
 *   state the previous run committed.
 * - The CMS token is given only to the step that talks to the CMS. `npm ci` sees no secret and
 *   runs no install script (`--ignore-scripts`): a dependency's script could otherwise rewrite
 *   the installed cms-sync, which the next step runs with the token. cms-sync needs none.
 *   Checkout keeps no credentials either, and the GitHub token that pushes the state is handed
 *   to that one step.
 * - cms-sync's stderr goes to a file, not to the log: file names and slugs in it could form
 *   workflow commands (`::error::`, `::add-mask::`, ...). The report step prints it made safe,
 *   and runs also when the plan or apply failed, so the summary says why.
 * - Every call is `./node_modules/.bin/cms-sync`: the binary `npm ci` installed from the lock
 *   file. Never `npx cms-sync`, which fetches and runs whatever the registry has under that name
 *   when the project lacks it, with the token in its environment; and not `npx --no-install`
 *   either, which still asks the registry and falls back to a global install.
 * - The state is committed back with `[skip ci]` even when apply fails part-way: it records
 *   what did reach the CMS, so the next run neither repeats nor loses it. Its files are
 *   `state.jsonl` and `state.log.jsonl`; a `state.json` of an earlier version is removed from git
 *   once the run has replaced it (and only then: while it is on disk, it is the state).
 */
export const WORKFLOW_TEMPLATE = `# cms-sync: plan on pull requests, apply on the default branch.
# Written by \`cms-sync init\`.
# Needs: cms-sync in package.json devDependencies (npm i -D cms-sync) and a package-lock.json;
# repository secret CMS_API_TOKEN; repository variable CMS_BASE_URL (Settings > Secrets and
# variables > Actions). Images are uploaded from the commit's raw URL (public repositories);
# for a private one set the variable CMS_MEDIA_BASE_URL to a URL your CMS can fetch content/ from.
# If your default branch is not main, change \`branches: [main]\` below. Every step runs the
# cms-sync that npm ci installed (./node_modules/.bin/cms-sync), never one fetched by name.
name: cms-sync

on:
  pull_request:
    paths: ['content/**', 'sync.config.*', '.cms-sync/state*', '.github/workflows/cms-sync.yml']
  push:
    branches: [main]
    paths: ['content/**', 'sync.config.*', '.github/workflows/cms-sync.yml']
  workflow_dispatch:

permissions:
  contents: read

jobs:
  plan:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 15
    # A newer push to the same pull request supersedes its plan; plans never block an apply.
    concurrency:
      group: cms-sync-plan-\${{ github.event.pull_request.number }}
      cancel-in-progress: true
    # The plan is posted as a comment on the pull request (and edited in place on later pushes).
    permissions:
      contents: read
      pull-requests: write
    steps:
      - uses: actions/checkout@v5
        with:
          persist-credentials: false
      - uses: actions/setup-node@v6
        with:
          node-version: 24
          cache: npm
      # No secret in this step, and no install script runs: one could rewrite the installed
      # cms-sync, which the next steps run with the token.
      - run: npm ci --ignore-scripts
      # The CMS's listing as the last apply left it (ids, slugs, change times; nothing secret), so
      # the plan reads only what changed since. Restored only: a pull request never writes it.
      - uses: actions/cache/restore@v4
        with:
          path: .cms-sync/listing-cache
          key: cms-sync-listing-\${{ github.run_id }}
          restore-keys: cms-sync-listing-
      - name: Plan
        env:
          CMS_BASE_URL: \${{ vars.CMS_BASE_URL }}
          CMS_API_TOKEN: \${{ secrets.CMS_API_TOKEN }}
          CMS_MEDIA_BASE_URL: \${{ vars.CMS_MEDIA_BASE_URL }}
          HEAD_SHA: \${{ github.event.pull_request.head.sha }}
        # The output goes to files; the Report step shows it with workflow commands defused.
        run: |
          if [ -z "$CMS_MEDIA_BASE_URL" ]; then
            export CMS_MEDIA_BASE_URL="https://raw.githubusercontent.com/$GITHUB_REPOSITORY/$HEAD_SHA/content/"
          fi
          ./node_modules/.bin/cms-sync plan --json --diff > plan.json 2> plan.log || {
            status=$?
            echo "cms-sync plan exited with $status: the Report step below shows why."
            exit $status
          }
      - name: Report
        if: always()
        env:
          GITHUB_TOKEN: \${{ github.token }}
        run: |
          if [ ! -x node_modules/.bin/cms-sync ]; then
            echo '### cms-sync is not installed: did npm ci fail?' >> "$GITHUB_STEP_SUMMARY"
            exit 1
          fi
          ./node_modules/.bin/cms-sync ci-report plan.json --log plan.log --pr-comment

  apply:
    # Only the default branch applies, also when started by hand from another branch.
    if: >-
      (github.event_name == 'push' || github.event_name == 'workflow_dispatch')
      && github.ref == format('refs/heads/{0}', github.event.repository.default_branch)
    runs-on: ubuntu-latest
    timeout-minutes: 60
    # One group for every apply to this CMS, whatever the branch; a queued run waits instead of
    # cancelling one midway. A copy of this workflow for a second CMS needs its own group name.
    concurrency:
      group: cms-sync-apply
      cancel-in-progress: false
    permissions:
      contents: write
    steps:
      - uses: actions/checkout@v5
        with:
          ref: \${{ github.ref }}
          persist-credentials: false
      - uses: actions/setup-node@v6
        with:
          node-version: 24
          cache: npm
      # No secret in this step, and no install script runs: one could rewrite the installed
      # cms-sync, which the next steps run with the token.
      - run: npm ci --ignore-scripts
      # Saved after the apply under a new key each run; a missing or stale cache only costs a full listing.
      - uses: actions/cache@v4
        with:
          path: .cms-sync/listing-cache
          key: cms-sync-listing-\${{ github.run_id }}
          restore-keys: cms-sync-listing-
      - name: Apply
        env:
          CMS_BASE_URL: \${{ vars.CMS_BASE_URL }}
          CMS_API_TOKEN: \${{ secrets.CMS_API_TOKEN }}
          CMS_MEDIA_BASE_URL: \${{ vars.CMS_MEDIA_BASE_URL }}
        run: |
          if [ -z "$CMS_MEDIA_BASE_URL" ]; then
            head=$(git rev-parse HEAD)
            export CMS_MEDIA_BASE_URL="https://raw.githubusercontent.com/$GITHUB_REPOSITORY/$head/content/"
          fi
          ./node_modules/.bin/cms-sync apply --json > apply.json 2> apply.log || {
            status=$?
            echo "cms-sync apply exited with $status: the Report step below shows why."
            exit $status
          }
      - name: Report
        if: always()
        run: |
          if [ ! -x node_modules/.bin/cms-sync ]; then
            echo '### cms-sync is not installed: did npm ci fail?' >> "$GITHUB_STEP_SUMMARY"
            exit 1
          fi
          ./node_modules/.bin/cms-sync ci-report apply.json --log apply.log
      - name: Commit state
        # Also after a failed apply: the state records what did reach the CMS.
        if: always()
        env:
          GITHUB_TOKEN: \${{ github.token }}
        run: |
          git add .cms-sync/state.jsonl .cms-sync/state.log.jsonl 2>/dev/null || exit 0
          [ -e .cms-sync/state.json ] || git rm -q --cached --ignore-unmatch .cms-sync/state.json
          git diff --cached --quiet && exit 0
          git config user.name 'github-actions[bot]'
          git config user.email '41898282+github-actions[bot]@users.noreply.github.com'
          git commit -m 'cms-sync: update state [skip ci]'
          # Checkout kept no credentials (npm ci could have read them): this step alone has them.
          basic=$(printf 'x-access-token:%s' "$GITHUB_TOKEN" | base64 -w0)
          echo "::add-mask::$basic"
          auth="http.$GITHUB_SERVER_URL/.extraheader=AUTHORIZATION: basic $basic"
          git -c "$auth" pull --rebase origin "$GITHUB_REF_NAME"
          git -c "$auth" push origin "HEAD:$GITHUB_REF_NAME"
`;
