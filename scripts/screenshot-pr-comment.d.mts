/** Types of scripts/screenshot-pr-comment.mjs, for the test of its Markdown step. */
export function commentHtml(markdown: string): Promise<string>;
export function commentPage(bodyHtml: string): string;
