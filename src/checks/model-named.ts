/**
 * MODEL-001 ("it never substitutes another model silently") on the model a reply names, judged here for
 * every reply that names one: chat, embeddings, /v1/responses and the end of its stream, live and in
 * captures alike.
 */

/** What the reply's model says of the one requested, where it is no other model. */
export interface NamedModelProblem {
  id: 'MODEL-001';
  message: string;
  received: unknown;
  expected: string;
  level?: 'notable';
}

/**
 * A version of the same model (`-2024-08-06`, `-20241022`, `-002`, `@v2`, `-latest`), named as an upstream
 * names its snapshot of an alias (a reply to `gpt-4o` naming `gpt-4o-2024-08-06`). Not a variant of it:
 * `-mini` or `-large` is another model.
 */
const VERSION = /^[-@:](v?\d[\d.-]*|latest)$/i;

/**
 * The same model qualified by its provider (`openai/gpt-4o`) and/or followed by a version: a name the
 * reply's `model` field may carry (its meaning is not described: "| model | string | |"), so advisory.
 */
function versionOf(named: string, requested: string): boolean {
  // Leading provider segments dropped one at a time (an id may hold a slash itself: `meta/llama-3`).
  for (let rest = named; ; ) {
    if (rest === requested || (rest.startsWith(requested) && VERSION.test(rest.slice(requested.length))))
      return true;
    const slash = rest.indexOf('/');
    if (slash < 0) return false;
    rest = rest.slice(slash + 1);
  }
}

/**
 * MODEL-001 on a reply's `model` (`what`: "the reply", "the stream's end"): none when it names the model
 * requested (or names none: chat leaves it optional); notable when it names a version or a
 * provider-qualified name of it; a failure when it names any other model.
 */
export function namedModelProblem(
  requested: string,
  named: unknown,
  what: string,
): NamedModelProblem | undefined {
  if (named === undefined || named === requested) return undefined;
  const same = typeof named === 'string' && versionOf(named, requested);
  return {
    id: 'MODEL-001',
    message: same
      ? `requested ${requested}, ${what} names ${JSON.stringify(named)}: a version or provider-qualified name of it, not the exact id (advisory)`
      : `requested ${requested}, ${what} names ${JSON.stringify(named)}`,
    received: named,
    expected: requested,
    ...(same ? { level: 'notable' as const } : {}),
  };
}
