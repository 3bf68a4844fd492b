/** Code-unit order: the same on every machine and in every locale, unlike localeCompare (and many times faster). */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
