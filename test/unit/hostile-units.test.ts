/**
 * The pieces that keep a hostile target from steering the suite (issue 24), each on its own: one id one
 * path segment, the console neutraliser, the XML escaper, the deadline of an exchange, the seeded sample.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransportError } from '../../src/errors.ts';
import { HttpClient } from '../../src/http/client.ts';
import { Redactor } from '../../src/http/redact.ts';
import { hasDotSegment, segment, UnsendableId } from '../../src/http/segment.ts';
import { consoleText, inert } from '../../src/report/neutral.ts';
import { xmlDocument, xmlText } from '../../src/report/xml.ts';
import { seededSample } from '../../src/runtime/sample.ts';
import { HANG_BOUND_MS } from '../../tools/bounds.ts';

const HOSTILE =
  '\n::add-mask::passed\n::error file=x::y\n##[warning]w \u001b[2J\u001b]0;title\u0007 \u001b]8;;https://e/\u001b\\l ]]><x/>]]><x/> \u009b31m \u202e';

describe('one id, one path segment', () => {
  it.for(['.', '..', ''])('refuses %j before sending, as a transport failure of the target', (id) => {
    expect(() => segment(id, 'input id')).toThrow(UnsendableId);
    expect(() => segment(id)).toThrow(TransportError);
  });
  it.for(['a/b', 'a?b', 'a#b', 'https://evil.example/x?y#z', '%2e%2e', '.a', 'a..'])(
    'encodes %j as one segment the URL parser keeps',
    (id) => {
      const s = segment(id);
      const url = new URL(`http://h/v1/media/inputs/${s}`);
      expect(url.pathname).toBe(`/v1/media/inputs/${s}`);
      expect(decodeURIComponent(s)).toBe(id);
      expect(url.search + url.hash).toBe('');
    },
  );
  it('finds dot segments, encoded ones too', () => {
    for (const p of ['/a/./b', '/a/..', '/a/%2e%2E/b', '/a/.%2e?x=1']) expect(hasDotSegment(p)).toBe(true);
    for (const p of ['/a/b', '/a/...', '/a/.b', '/a?x=/../']) expect(hasDotSegment(p)).toBe(false);
  });
});

describe('the console neutraliser', () => {
  it('shows every control character of a value escaped, and ##[ defused', () => {
    const shown = inert(HOSTILE);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
    expect(shown).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(shown).not.toContain('##[');
    expect(shown).toContain('\\n::add-mask::passed');
    expect(shown).toContain('\\x1b]0;title\\x07');
  });
  it('lets no console line start with :: or hold ##[, keeps the suite’s own colours', () => {
    const text = consoleText(
      `ok\n::error::x\n  ::warning::y\n\u001b[31m::notice::z\u001b[0m\na ##[group]b\n\u001b[2J`,
    );
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the suite's own colour (ESC [ n m) may lead a line; what follows it is what is judged
    for (const line of text.split('\n')) expect(line).not.toMatch(/^\s*(\u001b\[\d+m)*::|##\[/);
    expect(text).toContain('\u001b[31m');
    expect(text).toContain('\\x1b[2J');
    expect(consoleText(text)).toBe(text);
  });
});

describe('the XML escaper', () => {
  it('writes any string as text a strict parser reads back, no element injected', () => {
    const doc = xmlDocument({
      name: 'testsuites',
      children: [
        {
          name: 'testcase',
          attrs: { name: HOSTILE },
          children: [{ name: 'skipped' }, { name: 'system-out', text: HOSTILE }],
        },
      ],
    });
    expect(XMLValidator.validate(doc)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(doc) as {
      testsuites: { testcase: Record<string, unknown> };
    };
    expect(Object.keys(parsed.testsuites.testcase).sort()).toEqual(['@_name', 'skipped', 'system-out']);
    expect(xmlText(']]>]]>')).toBe(']]&gt;]]&gt;');
  });
});

describe('the seeded sample', () => {
  const items = Array.from({ length: 20_000 }, (_, i) => `m-${i}`);
  it('is bounded, reproducible by the seed and independent of the listing order', () => {
    const a = seededSample(items, 4, 7, (x) => x);
    expect(a).toHaveLength(4);
    expect(seededSample([...items].reverse(), 4, 7, (x) => x)).toEqual(a);
    expect(seededSample(items, 4, 8, (x) => x)).not.toEqual(a);
    expect(seededSample(items.slice(0, 3), 4, 7, (x) => x)).toEqual(items.slice(0, 3));
  });
});

describe('one deadline per exchange', () => {
  let url = '';
  const closed: number[] = [];
  const server = createServer((_req, res: ServerResponse) => {
    // Headers at once, then two bytes a second: no idle timeout ever fires.
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[');
    const since = Date.now();
    const timer = setInterval(() => res.write('0,'), 500);
    res.on('close', () => {
      clearInterval(timer);
      closed.push(Date.now() - since);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('ends a dripping reply at its deadline, body included, whatever the garbage collector does', async () => {
    // With a stop signal the old client joined it to an AbortSignal.timeout in AbortSignal.any; collected,
    // that timeout never fired (nodejs/node#57736): the reply stayed open past 10 s of a 1.5 s deadline.
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const stop = new AbortController();
    const client = new HttpClient({
      baseUrl: url,
      timeoutMs: 1_500,
      redactor: new Redactor({}),
      signal: stop.signal,
    });
    const collecting = setInterval(gc, 100);
    const err = await client
      .send({ method: 'GET', path: '/drip' })
      .catch((e: unknown) => e)
      .finally(() => clearInterval(collecting));
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).code).toBe('TIMEOUT');
    // The deadline fired (TIMEOUT above) and the reply was closed, not left dripping: the server sees the
    // close (in the bug it never came). How soon after the deadline depends on the machine's load.
    await expect.poll(() => closed.length, { timeout: HANG_BOUND_MS }).toBe(1);
  });

  it('refuses a path with a dot segment before sending, and records it', async () => {
    const seen: string[] = [];
    const client = new HttpClient({
      baseUrl: url,
      timeoutMs: 1_500,
      redactor: new Redactor({}),
      onExchange: (ex) => seen.push(`${ex.path} ${ex.error?.code}`),
    });
    const before = closed.length;
    const err = await client.send({ method: 'DELETE', path: '/v1/media/inputs/..' }).catch((e: unknown) => e);
    expect((err as TransportError).code).toBe('DOT_SEGMENT');
    expect(seen).toEqual(['/v1/media/inputs/.. DOT_SEGMENT']);
    expect(closed.length).toBe(before);
  });
});
