/**
 * Redaction of secrets in everything the suite records or prints. Why both a value scan and header
 * masking: a probe may send a *part* of a key (a truncated key), which no value scan would find, so
 * credential-bearing request headers and query parameters are masked whole.
 */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'cookie',
  'x-api-key',
  'api-key',
  'proxy-authorization',
]);
const CREDENTIAL_PARAM = /key|token|auth|secret|password/i;

export class Redactor {
  private readonly secrets: Array<[string, string]>;

  constructor(secrets: Record<string, string | undefined>) {
    this.secrets = Object.entries(secrets)
      .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length >= 4)
      .map(([label, value]) => [value, label] as [string, string])
      .sort((a, b) => b[0].length - a[0].length);
  }

  /** Replace every secret value in a string. */
  text(s: string): string {
    let out = s;
    for (const [value, label] of this.secrets) {
      if (out.includes(value)) out = out.split(value).join(`[REDACTED:${label}]`);
    }
    return out;
  }

  /** Deep-redact a JSON-like value (strings inside are scanned). */
  value<T>(v: T): T {
    return JSON.parse(this.text(JSON.stringify(v) ?? 'null')) as T;
  }

  requestHeaders(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (CREDENTIAL_HEADERS.has(name.toLowerCase())) {
        const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
        const label = this.secrets.find(([v]) => value.endsWith(` ${v}`))?.[1];
        const mask = `[REDACTED${label ? `:${label}` : ''}]`;
        out[name] =
          name.toLowerCase() === 'cookie'
            ? value.replace(/=([^;]*)/g, `=${mask}`)
            : scheme
              ? `${scheme} ${mask}`
              : mask;
      } else {
        out[name] = this.text(value);
      }
    }
    return out;
  }

  /** Path with query: credential-like parameter values masked, every other secret value replaced. */
  pathWithQuery(path: string): string {
    const q = path.indexOf('?');
    if (q < 0) return this.text(path);
    const params = new URLSearchParams(path.slice(q + 1));
    const parts: string[] = [];
    for (const [k, v] of params) {
      parts.push(
        `${encodeURIComponent(k)}=${CREDENTIAL_PARAM.test(k) ? '[REDACTED]' : encodeURIComponent(v)}`,
      );
    }
    return this.text(`${path.slice(0, q)}?${parts.join('&')}`);
  }
}
