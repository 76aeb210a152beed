import type { Exchange } from '../http/client.ts';
import type { Effect, Outcome, Role, Violation } from '../model.ts';

export interface TestResultRecord {
  title: string;
  file: string;
  ids: string[];
  effect?: Effect;
  outcome: Outcome;
  durationMs: number;
  reason?: string;
  error?: string;
  violations: Array<Violation & { count: number }>;
  exchanges: Exchange[];
  exchangeCount: number;
  cleanup?: { done: string[]; failed: string[] };
}

export interface Summary {
  suite: { name: 'gateway-conformance'; version: string };
  target: {
    name: string;
    baseUrl: string;
    embedded: boolean;
    allow: Effect[];
    roles: Role[];
    models: Record<string, string>;
  };
  strict: boolean;
  seed: number;
  startedAt: string;
  durationMs: number;
  openapi: { sha256?: string; valid: boolean; errors: string[] };
  verdict: 'passed' | 'failed' | 'harness_error';
  counts: Record<Outcome, number> & { total: number };
  /** Every failing requirement id, with how many tests it failed. */
  failedRequirements: Record<string, number>;
  advisoryRequirements: Record<string, number>;
  coverage: { testable: number; tested: number; untested: string[]; unknownIds: string[] };
  exchanges: { file: string; count: number };
  /** Things the run created and removed again; what it could not remove is listed by name. */
  cleanup: { cleaned: number; leftBehind: string[] };
  tests: TestResultRecord[];
}

export const OUTCOMES: Outcome[] = ['passed', 'failed', 'advisory', 'not_run', 'harness_error'];
