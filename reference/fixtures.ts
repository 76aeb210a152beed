// Shared fixtures read by the reference server (never src/: the reference stands alone).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface EndpointFixture {
  method: string;
  path: string;
  purpose: string;
  public?: boolean;
  effect: string;
  /** The key scopes that may cover it (none for the payment API). */
  scopes?: string[];
  /** Placeholder values of its path parameters. */
  path_params?: Record<string, string>;
  /** A valid request body, where it takes one. */
  probe?: { json?: Record<string, unknown> };
}

function readYaml(name: string): unknown {
  return parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
}

export const ENDPOINTS: readonly EndpointFixture[] = (
  readYaml('endpoints.yaml') as { endpoints: EndpointFixture[] }
).endpoints;

const roles = readYaml('roles.yaml') as { roles: Record<string, string>; hints: Record<string, string> };
export const ROLE_NAMES: readonly string[] = Object.keys(roles.roles);
export const HINT_NAMES: readonly string[] = Object.keys(roles.hints);

/** The restricted roles of the applicability map, each with the one scope its key holds. */
export const RESTRICTED_ROLES: Readonly<Record<string, string>> = (
  readYaml('applicability.yaml') as { restricted_roles: Record<string, string> }
).restricted_roles;
