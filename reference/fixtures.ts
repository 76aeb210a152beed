// Shared fixtures read by the reference server (never src/: the reference stands alone).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface EndpointFixture {
  method: string;
  path: string;
  purpose: string;
  public?: boolean;
  effect: string;
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
