/** Types of scripts/config-reference.mjs, for the test that keeps README in step with it. */
export interface ConfigOption {
  key: string;
  type: string;
  default: string;
  description: string;
}
export const START: string;
export const END: string;
export function configOptions(sourceText?: string): ConfigOption[];
export function configReference(rows?: ConfigOption[]): string;
export function readmeReference(readme?: string): string | undefined;
