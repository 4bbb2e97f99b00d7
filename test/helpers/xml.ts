// A small strict XML parser for tests (no XML parser is among the dependencies): the XML
// declaration, elements, attributes, text and the five predefined entities plus character
// references. Anything not well-formed throws: an unescaped `<` or `&`, a quote in an attribute, a
// mismatched or unclosed tag, a duplicate attribute, a character XML 1.0 does not allow, content
// after the root element. No DTDs, comments, CDATA or processing instructions beyond the declaration.

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const NAME = /[A-Za-z_:][A-Za-z0-9_:.-]*/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NOT_XML_CHAR = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function parseXml(source: string): XmlElement {
  if (NOT_XML_CHAR.test(source)) throw new Error(`character not allowed in XML at ${source.search(NOT_XML_CHAR)}`);
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at offset ${at}: ${JSON.stringify(source.slice(at, at + 30))}`);
  };
  const skipSpace = () => {
    while (/[ \t\r\n]/.test(source[at] ?? '')) at++;
  };
  const name = (): string => {
    NAME.lastIndex = at;
    const match = NAME.exec(source);
    if (!match) fail('expected a name');
    at += (match as RegExpExecArray)[0].length;
    return (match as RegExpExecArray)[0];
  };
  const decode = (raw: string): string =>
    raw.replace(/&([^;]*);?/g, (whole, entity: string) => {
      if (!whole.endsWith(';')) fail('an unterminated reference');
      if (entity.startsWith('#x') && /^#x[0-9A-Fa-f]+$/.test(entity)) return String.fromCodePoint(Number.parseInt(entity.slice(2), 16));
      if (entity.startsWith('#') && /^#[0-9]+$/.test(entity)) return String.fromCodePoint(Number.parseInt(entity.slice(1), 10));
      const known = ENTITIES[entity];
      if (known === undefined) fail(`an unknown entity &${entity};`);
      return known as string;
    });
  const element = (): XmlElement => {
    if (source[at] !== '<') fail('expected <');
    at++;
    const tag = name();
    const attributes: Record<string, string> = {};
    for (;;) {
      const before = at;
      skipSpace();
      if (source.startsWith('/>', at)) {
        at += 2;
        return { name: tag, attributes, children: [], text: '' };
      }
      if (source[at] === '>') {
        at++;
        break;
      }
      if (at === before) fail('expected white space before an attribute');
      const attribute = name();
      skipSpace();
      if (source[at] !== '=') fail('expected =');
      at++;
      skipSpace();
      const quote = source[at];
      if (quote !== '"' && quote !== "'") fail('expected a quoted value');
      const end = source.indexOf(quote as string, at + 1);
      if (end < 0) fail('an unterminated attribute value');
      const raw = source.slice(at + 1, end);
      if (raw.includes('<')) fail('< in an attribute value');
      if (Object.hasOwn(attributes, attribute)) fail(`a duplicate attribute ${attribute}`);
      attributes[attribute] = decode(raw);
      at = end + 1;
    }
    const children: XmlElement[] = [];
    let text = '';
    for (;;) {
      const next = source.indexOf('<', at);
      if (next < 0) fail(`an unclosed <${tag}>`);
      const raw = source.slice(at, next);
      if (raw.includes(']]>')) fail(']]> in text');
      text += decode(raw);
      at = next;
      if (source.startsWith('</', at)) {
        at += 2;
        const closing = name();
        if (closing !== tag) fail(`</${closing}> closes <${tag}>`);
        skipSpace();
        if (source[at] !== '>') fail('expected >');
        at++;
        return { name: tag, attributes, children, text };
      }
      children.push(element());
    }
  };
  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end < 0) fail('an unterminated XML declaration');
    at = end + 2;
  }
  skipSpace();
  const root = element();
  skipSpace();
  if (at !== source.length) fail('content after the root element');
  return root;
}
