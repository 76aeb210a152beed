import type { HttpResponse } from '../http/client.ts';
import type { Finding } from './exchange.ts';
import { kindOfName, leakPatterns } from './leak-names.ts';
import { replyFields } from './reply-fields.ts';
import { replyBody } from './sse.ts';

/**
 * SEC-002 on suspicion: names that suggest upstream keys, purchase cost, nodes or routing; a failure
 * when the value looks like that kind, else advisory. Skips /openapi.json (a description names fields).
 */
export function suspiciousFields(res: HttpResponse): Finding[] {
  const p = leakPatterns();
  const out: Finding[] = [];
  const where = `${res.method} ${res.exchange.path}`;
  const judge = (name: string, value: unknown, location: string, pointer?: string) => {
    const kind = kindOfName(name, p);
    if (kind) {
      const k = kind[1];
      const text = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
      const looks = text !== undefined && k.values.some((re) => re.test(text));
      out.push({
        id: 'SEC-002',
        message: `${where}: ${location} is named like ${k.description} (${kind[0]})${looks ? ' and its value looks like one' : ''}`,
        ...(pointer ? { pointer } : {}),
        ...(looks ? {} : { level: 'notable' as const }),
      });
    }
  };
  for (const [name, value] of Object.entries(res.headers)) {
    if (!p.ignoreHeaders.has(name)) judge(name, value, `header ${name}`);
  }
  const body = replyBody(res);
  if (body !== undefined && !res.rawPath.startsWith('/openapi.json')) {
    for (const f of replyFields(body)) judge(f.name, f.value, `field ${f.pointer}`, f.pointer);
  }
  return out;
}
