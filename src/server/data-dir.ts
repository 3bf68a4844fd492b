/**
 * Where `serve` keeps its data, relative to the project directory. Apart from the server so a
 * command can name it without loading the server.
 */
export const DEFAULT_DATA_DIR = '.cms-sync/local-cms';
