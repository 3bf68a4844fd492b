/** What a command touches of the outside world, passed in so tests can run commands in-process. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Resolves when the user asks the process to stop (Ctrl-C / SIGTERM). */
  interrupted: Promise<void>;
}

export function processIO(): CliIO {
  const interrupted = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), interrupted };
}

export function writeLine(stream: NodeJS.WritableStream, line = ''): void {
  stream.write(line + '\n');
}
