/**
 * A matrix row runner (forked by matrix.ts): receives `{ argv, env }` rows over IPC and runs each through
 * the CLI's own entry (`runArgs`: argument parsing, targets file, keys from the environment, the run, the
 * report, the exit code), one at a time, answering `{ code, rss, cpuMs }`. One process runs many rows, so the
 * start-up of node, tsx and the CLI's modules is paid once instead of once per row; each row still gets its
 * own vitest instance, worker threads and report directory. Ends when its parent disconnects.
 */
import { runArgs } from '../../src/app/cli.ts';

interface Row {
  argv: string[];
  env: Record<string, string>;
}

process.on('message', (msg: Row) => {
  void (async () => {
    const saved = new Map<string, string | undefined>();
    for (const [k, v] of Object.entries(msg.env)) {
      saved.set(k, process.env[k]);
      process.env[k] = v;
    }
    let code: number;
    const cpu = process.cpuUsage();
    try {
      code = await runArgs(msg.argv);
    } finally {
      for (const [k, v] of saved) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    const used = process.cpuUsage(cpu);
    // CPU of this process (the CLI and its worker threads) while the row ran, in ms.
    process.send?.({
      code,
      rss: process.memoryUsage().rss,
      cpuMs: Math.round((used.user + used.system) / 1000),
    });
  })();
});
process.on('disconnect', () => process.exit(0));
