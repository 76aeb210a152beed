/** Envelope-agnostic helpers: the contract leaves most envelopes unshown, so fields are found at any depth. */
export interface Found {
  pointer: string;
  value: unknown;
  parent: Record<string, unknown>;
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** A JSON Pointer from path segments. */
export function pointerOf(path: ReadonlyArray<string | number>, base = ''): string {
  let out = base;
  for (const seg of path) out += `/${typeof seg === 'number' ? seg : esc(seg)}`;
  return out;
}

/**
 * Visit every property of a JSON value, depth first in document order. Why a walker with one shared
 * path: every reply of a run is searched several times, and building a pointer string per node (or a
 * generator per level) made these searches the harness's main cost; pointers are built on a match only.
 */
export function walkFields(
  root: unknown,
  visit: (
    key: string,
    value: unknown,
    parent: Record<string, unknown>,
    path: ReadonlyArray<string | number>,
  ) => void,
): void {
  const path: Array<string | number> = [];
  const go = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (v !== null && typeof v === 'object') {
          path.push(i);
          go(v);
          path.pop();
        }
      }
    } else if (node !== null && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      for (const k in obj) {
        if (!Object.hasOwn(obj, k)) continue;
        const v = obj[k];
        path.push(k);
        visit(k, v, obj, path);
        if (v !== null && typeof v === 'object') go(v);
        path.pop();
      }
    }
  };
  go(root);
}

/** Every occurrence of a property named `name` anywhere in a JSON value. */
export function findField(root: unknown, name: string, pointer = ''): Found[] {
  const out: Found[] = [];
  walkFields(root, (k, value, parent, path) => {
    if (k === name) out.push({ pointer: pointerOf(path, pointer), value, parent });
  });
  return out;
}

/**
 * The list of entries of a list response whose envelope is not shown: a top-level array, else the
 * first array of objects found breadth-first (`data`, `models`, `items`, ...). An empty array counts
 * when it is the only array. Returns undefined when the body holds no array at all.
 */
export function findEntryList(
  root: unknown,
  /** Given: an array of objects is the list only if one of them is an entry (else it is another array). */
  isEntry?: (entry: unknown) => boolean,
): { pointer: string; entries: unknown[] } | undefined {
  if (Array.isArray(root)) return { pointer: '', entries: root };
  const queue: Array<[unknown, string]> = [[root, '']];
  let firstEmpty: { pointer: string; entries: unknown[] } | undefined;
  // An index, not shift(): shift() is linear in the queue, so a wide body made this quadratic.
  for (let head = 0; head < queue.length; head++) {
    const [node, ptr] = queue[head]!;
    if (!node || typeof node !== 'object' || Array.isArray(node)) continue;
    for (const [k, v] of Object.entries(node)) {
      const p = `${ptr}/${esc(k)}`;
      if (Array.isArray(v)) {
        if (
          v.length > 0 &&
          v.every((e) => e && typeof e === 'object' && !Array.isArray(e)) &&
          (!isEntry || v.some(isEntry))
        )
          return { pointer: p, entries: v };
        if (v.length === 0) firstEmpty ??= { pointer: p, entries: v };
      } else if (v && typeof v === 'object') {
        queue.push([v, p]);
      }
    }
  }
  return firstEmpty;
}

/** Every string value anywhere in a JSON value, with its pointer. */
export function allStrings(root: unknown, pointer = ''): Array<{ pointer: string; value: string }> {
  if (typeof root === 'string') return [{ pointer, value: root }];
  if (Array.isArray(root)) return root.flatMap((v, i) => allStrings(v, `${pointer}/${i}`));
  if (root && typeof root === 'object')
    return Object.entries(root).flatMap(([k, v]) => allStrings(v, `${pointer}/${esc(k)}`));
  return [];
}

/** The first string value of a JSON value, in allStrings' order, that `wanted` accepts (no pointers built). */
export function findString(root: unknown, wanted: (s: string) => boolean): string | undefined {
  if (typeof root === 'string') return wanted(root) ? root : undefined;
  if (root === null || typeof root !== 'object') return undefined;
  for (const v of Array.isArray(root) ? root : Object.values(root)) {
    const found = findString(v, wanted);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** Fields that usually carry a catalog entry's id, in order of preference (the field name is not shown). */
export const ID_FIELDS = ['id', 'model_id', 'model', 'name', 'slug'];

/** The id of a catalog entry whose field names the contract does not show. */
export function entryId(entry: unknown): string | undefined {
  if (!isPlainObject(entry)) return undefined;
  const f = ID_FIELDS.find((k) => typeof entry[k] === 'string');
  return f ? (entry[f] as string) : undefined;
}

/**
 * Every id a catalog entry may name its model by (the string values of its ID_FIELDS): what "the catalog
 * lists the model" is decided by. An entry may carry an id of its own beside the model's (`{id: "mdl_01",
 * model: "wc-chat-1"}`): the field names are not shown, so a model named by any of them is listed.
 */
export function entryIds(entry: unknown): string[] {
  if (!isPlainObject(entry)) return [];
  return ID_FIELDS.map((k) => entry[k]).filter((v): v is string => typeof v === 'string');
}

/**
 * The entries of a catalog (GET /v1/models, /v1/media/models) in an envelope that is not shown: the first
 * array of objects of which one names a model (entryId), else an empty array (an empty catalog beside
 * other arrays, `links` or `notices`, is still empty), else undefined. A catalog grouped by kind
 * (`{text: [...], embedding: [...]}`) is one catalog: the arrays of entries beside the first one, in the
 * same object, are read after it (`pointer` is the first's); an array inside an entry is no catalog.
 */
export function findCatalog(root: unknown): { pointer: string; entries: unknown[] } | undefined {
  const names = (e: unknown) => entryId(e) !== undefined;
  const first = findEntryList(root, names);
  if (!first || first.pointer === '') return first;
  const at = first.pointer.lastIndexOf('/');
  let parent: unknown = root;
  for (const token of first.pointer
    .slice(1, at === 0 ? 0 : at)
    .split('/')
    .filter(Boolean))
    parent = isPlainObject(parent) ? parent[token.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  if (!isPlainObject(parent)) return first;
  const beside = Object.values(parent).filter(
    (v): v is unknown[] =>
      Array.isArray(v) && v !== first.entries && v.length > 0 && v.every(isPlainObject) && v.some(names),
  );
  return beside.length === 0 ? first : { pointer: first.pointer, entries: [first.entries, ...beside].flat() };
}

/**
 * Whether an entry of a listing mentions the tag in one of its strings (the fields of a listed record,
 * such as a ticket's, are not shown, so a record the caller created is recognised by a unique tag it
 * sent), with the number of entries the listing holds (TICKET-010).
 */
export function listingMentions(json: unknown, tag: string): { found: boolean; entries: number } {
  const entries = findEntryList(json)?.entries ?? [];
  const found = entries.some((e) => allStrings(e).some((s) => s.value.includes(tag)));
  return { found, entries: entries.length };
}

/** A word (`chat`, `text-embedding`, `v1/responses`) or a list of them separated by `,`, `;` or `|`. */
const LIST_OF_WORDS = /^\s*[\w.:/-]+(\s*[,;|]\s*[\w.:/-]+)*\s*$/;
/** A value that denies what its field names: `native_responses: false`, `"responses": "unsupported"`. */
const DENIES = /^(false|no|none|off|disabled|unsupported|not[ _-]?supported|n\/a)$/i;

/**
 * The words in which a catalog entry states what its model does (the field names for capabilities are
 * not shown): the names of fields that affirm (`supports_responses: true`, `responses: "native"`, a
 * count above 0) and the values that are words, in arrays and nested objects alike (`capabilities:
 * ["chat"]`, `type: "embedding"`). Not the entry's id, not a field that denies (`native_responses:
 * false`: a model that says it lacks responses is no responses model), not free text (a description
 * "not for chat" names nothing).
 */
export function capabilityWords(entry: Record<string, unknown>, idField: string): string[] {
  const words: string[] = [];
  const walk = (value: unknown, name: string | undefined): void => {
    if (Array.isArray(value)) for (const v of value) walk(v, undefined);
    else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walk(v, k);
    else if (value === true || (typeof value === 'number' && value > 0)) {
      if (name) words.push(name);
    } else if (typeof value === 'string') {
      // A word, or a list of words ("chat, responses"); anything else is free text.
      const items = LIST_OF_WORDS.test(value) ? value.split(/[,;|]/).map((w) => w.trim()) : [];
      if (items.some((w) => DENIES.test(w))) return;
      words.push(...items);
      if (name && items.length > 0) words.push(name);
    }
  };
  for (const [k, v] of Object.entries(entry)) if (k !== idField) walk(v, k);
  return words;
}
