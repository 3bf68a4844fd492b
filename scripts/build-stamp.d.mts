/** Types of scripts/build-stamp.mjs, for the test of when `npm test` may skip the build. */
export const INPUTS: string[];
export const STAMP: string;
export function digest(root: string, entries: string[]): string;
export function buildIsCurrent(root: string): boolean;
export function startBuild(root: string): string;
export function recordBuild(root: string, inputs: string): void;
