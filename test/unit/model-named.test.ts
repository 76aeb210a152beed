import { describe, expect, it } from 'vitest';
import { namedModelProblem } from '../../src/checks/model-named.ts';

const verdict = (requested: string, named: unknown) => {
  const p = namedModelProblem(requested, named, 'the reply');
  return p === undefined ? 'met' : (p.level ?? 'failure');
};

describe('MODEL-001 on the model a reply names', () => {
  it('is met by the id requested, or by none', () => {
    expect(verdict('wc-chat-1', 'wc-chat-1')).toBe('met');
    expect(verdict('wc-chat-1', undefined)).toBe('met');
  });

  it('notes a version or a provider-qualified name of the same model (advisory)', () => {
    expect(verdict('gpt-4o', 'gpt-4o-2024-08-06')).toBe('notable');
    expect(verdict('claude-3-5-sonnet', 'claude-3-5-sonnet-20241022')).toBe('notable');
    expect(verdict('gemini-1.5-pro', 'gemini-1.5-pro-002')).toBe('notable');
    expect(verdict('wc-chat', 'wc-chat@v2')).toBe('notable');
    expect(verdict('wc-chat', 'wc-chat-latest')).toBe('notable');
    expect(verdict('gpt-4o', 'openai/gpt-4o')).toBe('notable');
    expect(verdict('meta/llama-3', 'meta/llama-3-001')).toBe('notable');
  });

  it('fails another model, a variant of the name included', () => {
    expect(verdict('gpt-4o', 'gpt-4o-mini')).toBe('failure');
    expect(verdict('wc-chat-1', 'wc-chat-2')).toBe('failure');
    expect(verdict('wc-chat-1', 'wc-chat-10')).toBe('failure');
    expect(verdict('wc-chat', 'other/wc-chat-large')).toBe('failure');
    expect(verdict('wc-chat-1', 42)).toBe('failure');
    expect(verdict('wc-chat-1', '')).toBe('failure');
  });
});
