import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Agent, request } from '../../src/http/undici.ts';

const require = createRequire(import.meta.url);

describe('src/http/undici.ts: the parts of undici the client loads', () => {
  it("are the package's own Agent and request", () => {
    const undici = require('undici') as typeof import('undici');
    expect(Agent).toBe(undici.Agent);
    expect(require('undici/lib/api/api-request.js')).toBe(
      (require('undici/lib/api/index.js') as { request: unknown }).request,
    );
  });

  it('send a request with its method, path, query, headers and body, and read the reply', async () => {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () =>
        res.end(JSON.stringify({ method: req.method, url: req.url, h: req.headers['x-a'], body })),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const agent = new Agent();
    try {
      const res = await request(new URL(`http://127.0.0.1:${port}/v1/x?y=1`), {
        method: 'POST',
        headers: { 'x-a': 'b' },
        body: 'hi',
        dispatcher: agent,
      });
      expect(res.statusCode).toBe(200);
      expect(await res.body.json()).toEqual({ method: 'POST', url: '/v1/x?y=1', h: 'b', body: 'hi' });
    } finally {
      await agent.close();
      server.close();
    }
  });
});
