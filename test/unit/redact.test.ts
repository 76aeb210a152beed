import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.ts';

const r = new Redactor({ primary: 'sk-ref-0123456789abcdef', other_tenant: 'sk-ref-fedcba9876543210' });

describe('redaction', () => {
  it('replaces every key value with its role', () => {
    expect(r.text('a sk-ref-0123456789abcdef b sk-ref-fedcba9876543210')).toBe(
      'a [REDACTED:primary] b [REDACTED:other_tenant]',
    );
  });

  it('masks credential headers whole, even a truncated key no value scan would find', () => {
    expect(r.requestHeaders({ authorization: 'Bearer sk-ref-0123456789' })).toEqual({
      authorization: 'Bearer [REDACTED]',
    });
    expect(r.requestHeaders({ Authorization: 'Bearer sk-ref-0123456789abcdef' })).toEqual({
      Authorization: 'Bearer [REDACTED:primary]',
    });
    expect(r.requestHeaders({ cookie: 'session=sk-ref; a=b' })).toEqual({
      cookie: 'session=[REDACTED]; a=[REDACTED]',
    });
    expect(r.requestHeaders({ 'content-type': 'application/json' })).toEqual({
      'content-type': 'application/json',
    });
  });

  it('masks credential-like query parameters', () => {
    expect(r.pathWithQuery('/v1/models?api_key=sk-ref-01&limit=2&access_token=x')).toBe(
      '/v1/models?api_key=[REDACTED]&limit=2&access_token=[REDACTED]',
    );
  });

  it('redacts inside JSON values', () => {
    expect(r.value({ a: ['x sk-ref-0123456789abcdef'] })).toEqual({ a: ['x [REDACTED:primary]'] });
  });
});
