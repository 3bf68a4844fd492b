/**
 * The starter `content/` that `cms-sync init` writes: one category, one article with an image,
 * one page. Small enough to delete in a minute, real enough that `cms-sync plan` shows every
 * kind of work (a category, an article that refers to it, an upload, a page).
 */
export const STARTER_CONTENT: Readonly<Record<string, string>> = {
  'content/categories/news.md': `---
name: News
description: Reporting from the newsroom.
---
`,
  'content/articles/hello-world.md': `---
title: Hello from cms-sync
date: 2026-01-15
category: news
draft: true
---
This article lives in \`content/articles/hello-world.md\`. Edit it, run \`cms-sync plan\` to
see what would change in the CMS, then \`cms-sync apply\` to send it.

![The newsroom's first chart](../images/first-chart.svg)

Front matter sets the title, the date, the category (by its slug) and whether it is a draft:
\`draft: true\` keeps it unpublished. Remove that line when it is ready to go live.
`,
  'content/pages/about.md': `---
title: About us
---
# About us

Who we are and what we publish. This page is \`content/pages/about.md\`.
`,
  // A hand-written SVG: text in git, with a real size, so it renders anywhere.
  'content/images/first-chart.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180" viewBox="0 0 320 180">
  <title>Stories published per month</title>
  <rect width="320" height="180" fill="#f4f6f8"/>
  <g fill="#2f6db5">
    <rect x="30" y="110" width="40" height="50"/>
    <rect x="90" y="80" width="40" height="80"/>
    <rect x="150" y="60" width="40" height="100"/>
    <rect x="210" y="30" width="40" height="130"/>
  </g>
  <line x1="20" y1="160" x2="300" y2="160" stroke="#1d2430" stroke-width="2"/>
</svg>
`,
};
