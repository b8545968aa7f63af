/** What a secret becomes in a log line. */
export const REDACTED = '[Redacted]';

/** Request headers that carry credentials, as property names of logged objects. */
const SECRET_HEADERS = [
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
];

/**
 * Values a walk looks at, at most. Pino already cuts what it writes (five levels deep, a hundred
 * entries per level): this only bounds the work on what it could not cut, such as a long array
 * of strings.
 */
const MAX_NODES = 20_000;
const MAX_DEPTH = 32;

/** Percent-decodings undone when reading a name: a query parser decodes once, clients nest. */
const MAX_DECODINGS = 3;

/**
 * `scheme://userinfo@`: credentials written in a URL. All of the user information is masked: a
 * token often stands where a user name would (`https://TOKEN@host/`).
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>]+@/gi;

/**
 * `name=value` of a query string, a form body or a sentence, with what comes before it. A value
 * stops at a `?`, so that a path holding `=` (`/api/a;b=c?api_key=…`) cannot swallow the query.
 */
const PAIR = /(^|[?&\s])([^\s=&?#"'<>]+)=([^\s&?#"'<>]*)/g;

/** `"name": value` of JSON text held in a string, for a scalar value. */
const JSON_MEMBER =
  /"((?:[^"\\]|\\.){1,200})"(\s*:\s*)("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)/g;

/**
 * Masks secrets in what is about to be logged, by the names they travel under: the parameter
 * names given (API keys, adapters' credentials) and the credential headers. A name counts in any
 * case, percent-encoded or not, and as any part of a bracketed name (`x[api_key]`, `api_key[]`,
 * `adapter_data[password]`), the way the query parser would read it.
 */
export class Redactor {
  private readonly names: ReadonlySet<string>;
  /** A JSON member with a secret name, inside a parameter's value. */
  private readonly secretMember: RegExp;

  constructor(names: Iterable<string>) {
    this.names = new Set([...names, ...SECRET_HEADERS].map((name) => name.toLowerCase()));
    const alternatives = [...this.names]
      .map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|');
    this.secretMember = new RegExp(`"(?:${alternatives})"\\s*:`, 'i');
  }

  /** Whether a parameter or property name designates a secret. */
  isSecretName(name: string): boolean {
    const plain = /[%+]/.test(name) ? decodeName(name) : name;
    return plain
      .toLowerCase()
      .split(/[[\]]/)
      .some((part) => this.names.has(part.trim()));
  }

  /**
   * `text` with the secrets it shows masked: the values of query or form parameters and of JSON
   * members under a secret name, a parameter whose value is JSON holding one, and the password of
   * credentials written in a URL.
   */
  text(text: string): string {
    let masked = text;
    if (masked.includes('@')) {
      masked = masked.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
    }
    if (masked.includes('=')) {
      masked = masked.replace(PAIR, (pair, before: string, name: string, value: string) =>
        this.isSecretName(name) || this.holdsSecretMember(value) || holdsUrlCredentials(value)
          ? `${before}${name}=${REDACTED}`
          : pair,
      );
    }
    if (masked.includes('"')) {
      masked = masked.replace(JSON_MEMBER, (member, name: string, colon: string) =>
        this.isSecretName(name) ? `"${name}"${colon}"${REDACTED}"` : member,
      );
    }
    return masked;
  }

  /**
   * A copy of a JSON value with every member under a secret name masked, at any depth, and
   * every string masked as `text` masks it. Past the limits of the walk, values are masked whole.
   */
  value(value: unknown): unknown {
    let budget = MAX_NODES;
    const walk = (current: unknown, depth: number): unknown => {
      budget -= 1;
      if (budget < 0 || depth > MAX_DEPTH) {
        return REDACTED;
      }
      if (typeof current === 'string') {
        return this.text(current);
      }
      if (Array.isArray(current)) {
        return current.map((item) => walk(item, depth + 1));
      }
      if (typeof current === 'object' && current !== null) {
        return Object.fromEntries(
          Object.entries(current).map(([name, item]) => [
            name,
            this.isSecretName(name) ? REDACTED : walk(item, depth + 1),
          ]),
        );
      }
      return current;
    };
    return walk(value, 0);
  }

  /**
   * A JSON log line with every secret masked (see `value`); the same string when it mentions
   * none, or only masked ones, which is most lines: they cost a few string searches.
   */
  line(line: string): string {
    if (!this.mayHoldSecret(line)) {
      return line;
    }
    const end = line.endsWith('\n') ? '\n' : '';
    try {
      return `${JSON.stringify(this.value(JSON.parse(line)))}${end}`;
    } catch {
      return this.text(line);
    }
  }

  /** Whether a parameter's value is JSON (as `adapter_data` may be) with a secret member. */
  private holdsSecretMember(value: string): boolean {
    return (value.includes('"') || /%22/i.test(value)) && this.secretMember.test(decodeName(value));
  }

  /**
   * Whether `line` shows a secret name whose value is not masked, or credentials in a URL. Most
   * lines only show `api_key=[Redacted]`; they are told apart by string searches, and decoded
   * first only when an escape could spell a name (`api%5Fkey`), not for escaped values (`%2B33`).
   */
  private mayHoldSecret(line: string): boolean {
    if ((line.includes('@') || /%40/i.test(line)) && holdsUrlCredentials(line)) {
      return true;
    }
    const text = (NAME_ESCAPE.test(line) ? decodeName(line) : line).toLowerCase();
    for (const name of this.names) {
      for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + name.length)) {
        const end = at + name.length;
        if (!isNamePart(text, at - 1) && !isNamePart(text, end) && !isMasked(text, end)) {
          return true;
        }
      }
    }
    return false;
  }
}

/** Whether `text`, percent-decoded, writes credentials in a URL (a parameter's value may). */
function holdsUrlCredentials(text: string): boolean {
  URL_CREDENTIALS.lastIndex = 0;
  return URL_CREDENTIALS.test(/%/.test(text) ? decodeName(text) : text);
}

/**
 * An escape that may spell part of a name or end one: a letter, a digit, `_`, `-`, a bracket, or
 * an escaped `%`.
 */
const NAME_ESCAPE = /%(?:2[5d]|3\d|[46][1-9a-f]|5[0-9a-f]|7[0-9a])/i;

/** A name only counts whole: `pin` is a credential, `ping` and `mapping` are not. */
function isNamePart(text: string, index: number): boolean {
  return index >= 0 && index < text.length && /[a-z0-9_]/.test(text[index]);
}

/** After a name, in a lowercased line: brackets, then `=` or `":"`, then the mask. */
const MASKED_AFTER = /(?:\[[^\]=&"]*\]|\])*(?:=|"\s*:\s*")\[redacted\]/y;

function isMasked(text: string, index: number): boolean {
  MASKED_AFTER.lastIndex = index;
  return MASKED_AFTER.test(text);
}

/**
 * `name` percent-decoded, `+` read as a space, a few times over; a malformed escape is left as
 * it is rather than failing the whole name. Only ASCII is decoded: secret names are ASCII.
 */
function decodeName(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  for (let round = 0; round < MAX_DECODINGS && decoded.includes('%'); round++) {
    const next = decoded.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) =>
      String.fromCharCode(parseInt(hex, 16)),
    );
    if (next === decoded) {
      break;
    }
    decoded = next;
  }
  return decoded;
}
