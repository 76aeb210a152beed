/**
 * The one XML escaper of the reports (junit.xml, written by the run and by `merge`), and a minimal
 * element writer built on it. Why not a builder library's CDATA: a CDATA section cannot hold `]]>` and
 * no XML 1.0 text can hold most control characters; a string a target controls (a status, a message)
 * can carry both. Here every string is escaped text, never CDATA, so no string can end a section or
 * open an element, and a character XML cannot carry is shown escaped (`\x1b`).
 */

/** Characters XML 1.0 allows (Char production), as what is not allowed: most C0 controls, lone surrogates, U+FFFE/F. */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Any string as XML character data or an attribute value: markup characters as entities, line breaks
 * and tabs as character references (kept in attributes, where a parser would normalise them), and what
 * XML cannot carry as a visible escape.
 */
export function xmlText(value: unknown): string {
  return String(value)
    .replace(NOT_XML, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/[&<>"']/g, (ch) => ENTITY[ch]!)
    .replace(/[\t\n\r]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** An element: its attributes, then child elements or text (escaped), never raw markup. */
export interface XmlElement {
  name: string;
  attrs?: Record<string, string | number | undefined>;
  children?: XmlElement[];
  text?: string;
}

export function xmlElement(e: XmlElement, indent = ''): string {
  const attrs = Object.entries(e.attrs ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlText(v)}"`)
    .join('');
  const open = `${indent}<${e.name}${attrs}`;
  if (e.children?.length)
    return `${open}>\n${e.children.map((c) => xmlElement(c, `${indent}  `)).join('\n')}\n${indent}</${e.name}>`;
  if (e.text) return `${open}>${xmlText(e.text)}</${e.name}>`;
  return `${open}/>`;
}

export function xmlDocument(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlElement(root)}\n`;
}
