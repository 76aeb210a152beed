/**
 * --deadline: nothing of the run's own is sent once the wall clock is past the deadline, even where the
 * deadline's timer has not fired yet (a time sync stepped the clock, a loaded machine ran the timer late).
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runConformance } from '../../src/app/run.ts';
import { resolveTarget } from '../../src/config/targets.ts';

const paths: string[] = [];
let server: Server;
let baseUrl = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    res.writeHead(429, { 'retry-after': '29', 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('the run deadline by the clock', () => {
  it('the preflight sends no next read when the clock passed the deadline during its first one', async () => {
    const target = resolveTarget({ baseUrl }, { CONFORMANCE_API_KEY: 'sk-not-used-0123456789' });
    const real = Date.now.bind(Date);
    let step = 0;
    // The wall clock steps 60 s forward while the description's request is answered: the deadline
    // (30 s) is then behind it, its timer 30 s away.
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => real() + step);
    const log: string[] = [];
    try {
      const stepped = server.listeners('request')[0] as (...a: unknown[]) => void;
      server.removeAllListeners('request');
      server.on('request', (req, res) => {
        step = 60_000;
        stepped(req, res);
      });
      const result = await runConformance(
        {
          target,
          deadlineMs: 30_000,
          reportDir: join(mkdtempSync(join(tmpdir(), 'gc-deadline-')), 'report'),
          quiet: true,
        },
        (s) => log.push(s),
      );
      expect(paths).toEqual(['GET /openapi.json']);
      expect(result.summary.cut?.kind).toBe('deadline');
      expect(result.exitCode).toBe(4);
    } finally {
      clock.mockRestore();
    }
  }, 20_000);
});
