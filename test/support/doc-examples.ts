import { readFileSync } from 'node:fs';

/*
 * The shell examples of the README and docs/ as the docs-examples spec runs them, and the
 * answers they show as patterns to match. The convention they follow is in the README's
 * "Examples are tests".
 */

/** The HTML comment that leaves out the block after it. */
export const SKIP_MARKER = '<!-- example: skip -->';

/** One command of a shell example, with the answer the docs show for it. */
export interface DocExample {
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  /** As written, continuation lines included. */
  command: string;
  answer: { text: string; line: number } | null;
}

const FENCE = /^(\s*)```(\S*)\s*$/;
const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell']);
/** Lines setting the variables the runner sets itself. */
const READER_SETUP = /^(API|KEY)=/;
const API_COMMAND = /^(curl|npx smsgw)\s/;
/** A comment line opening an answer: JSON or a status code, never prose. */
const ANSWER_START = /^#\s*[[{\d]/;

interface Block {
  language: string;
  /** 1-based line of the block's first content line. */
  start: number;
  lines: string[];
  skipped: boolean;
  /** Whether only blank lines part it from the block before. */
  adjacent: boolean;
}

function readBlocks(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let previous = '';
  let closed = -1;
  for (let i = 0; i < lines.length; i += 1) {
    const opening = FENCE.exec(lines[i]);
    if (!opening || opening[2] === '') {
      if (lines[i].trim() !== '') {
        previous = lines[i].trim();
      }
      continue;
    }
    const indent = opening[1].length;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) {
      body.push(lines[j].slice(Math.min(indent, lines[j].length - lines[j].trimStart().length)));
      j += 1;
    }
    blocks.push({
      language: opening[2],
      start: i + 2,
      lines: body,
      skipped: previous === SKIP_MARKER,
      adjacent: closed >= 0 && lines.slice(closed + 1, i).every((line) => line.trim() === ''),
    });
    previous = '';
    closed = j;
    i = j;
  }
  return blocks;
}

/** How many brackets `text` leaves open, strings aside. */
function openBrackets(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (inString) {
      if (char === '\\') {
        i += 1;
      } else if (char === '"') {
        inString = false;
      }
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      depth += 1;
    } else if (char === '}' || char === ']') {
      depth -= 1;
    }
  }
  return depth;
}

function commandsOf(file: string, block: Block, blockAnswer: DocExample['answer']): DocExample[] {
  const examples: DocExample[] = [];
  const { lines } = block;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i].trim();
    if (line === '' || line.startsWith('#')) {
      i += 1;
      continue;
    }
    const first = i;
    while (lines[i].trimEnd().endsWith('\\') && i + 1 < lines.length) {
      i += 1;
    }
    const command = lines.slice(first, i + 1).join('\n');
    i += 1;
    let answer: DocExample['answer'] = null;
    if (i < lines.length && ANSWER_START.test(lines[i].trim())) {
      const answerLine = block.start + i;
      const parts: string[] = [];
      do {
        parts.push(lines[i].trim().replace(/^#\s?/, ''));
        i += 1;
      } while (
        openBrackets(parts.join('\n')) > 0 &&
        i < lines.length &&
        lines[i].trim().startsWith('#')
      );
      answer = { text: parts.join('\n'), line: answerLine };
    }
    if (!READER_SETUP.test(line)) {
      examples.push({ file, line: block.start + first, command, answer: answer ?? blockAnswer });
    }
  }
  return examples;
}

/** The examples of `path` (shown as `file`), in order: the shell blocks that call smsgw. */
export function readExamples(path: string, file: string): DocExample[] {
  const blocks = readBlocks(readFileSync(path, 'utf8'));
  const examples: DocExample[] = [];
  blocks.forEach((block, index) => {
    if (!SHELL_LANGUAGES.has(block.language) || block.skipped) {
      return;
    }
    const next = blocks[index + 1];
    const blockAnswer =
      next?.language === 'json' && next.adjacent
        ? { text: next.lines.join('\n'), line: next.start }
        : null;
    const commands = commandsOf(file, block, blockAnswer);
    if (commands.some((example) => API_COMMAND.test(example.command.trim()))) {
      examples.push(...commands);
    }
  });
  return examples;
}

/* Answers as patterns: JSON where `…` stands for any value, member, element or rest of string. */

type Pattern =
  | { kind: 'any' }
  | { kind: 'rest' }
  | { kind: 'object'; members: Array<[string, Pattern]>; open: boolean }
  | { kind: 'array'; items: Pattern[] }
  | { kind: 'string'; value: string }
  | { kind: 'literal'; value: number | boolean | null };

const ELLIPSIS = '…';

class PatternReader {
  private at = 0;

  constructor(private readonly text: string) {}

  read(): Pattern {
    const pattern = this.value();
    this.space();
    if (this.at < this.text.length) {
      this.fail('unexpected text after the answer');
    }
    return pattern;
  }

  private value(): Pattern {
    this.space();
    const char = this.text[this.at];
    if (char === ELLIPSIS) {
      this.at += 1;
      return { kind: 'any' };
    }
    if (char === '{') {
      return this.object();
    }
    if (char === '[') {
      return this.array();
    }
    if (char === '"') {
      return { kind: 'string', value: this.string() };
    }
    const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(
      this.text.slice(this.at),
    );
    if (!literal) {
      this.fail('a JSON value or … expected');
    }
    this.at += literal[0].length;
    return { kind: 'literal', value: JSON.parse(literal[0]) as number | boolean | null };
  }

  private object(): Pattern {
    this.at += 1;
    const members: Array<[string, Pattern]> = [];
    let open = false;
    this.list('}', () => {
      if (this.text[this.at] === ELLIPSIS) {
        this.at += 1;
        open = true;
        return;
      }
      if (this.text[this.at] !== '"') {
        this.fail('a member name or … expected');
      }
      const name = this.string();
      this.space();
      if (this.text[this.at] !== ':') {
        this.fail('":" expected');
      }
      this.at += 1;
      members.push([name, this.value()]);
    });
    return { kind: 'object', members, open };
  }

  private array(): Pattern {
    this.at += 1;
    const items: Pattern[] = [];
    this.list(']', () => {
      if (this.text[this.at] === ELLIPSIS) {
        this.at += 1;
        items.push({ kind: 'rest' });
        return;
      }
      items.push(this.value());
    });
    return { kind: 'array', items };
  }

  private list(close: string, item: () => void): void {
    this.space();
    if (this.text[this.at] === close) {
      this.at += 1;
      return;
    }
    for (;;) {
      this.space();
      item();
      this.space();
      const char = this.text[this.at];
      this.at += 1;
      if (char === close) {
        return;
      }
      if (char !== ',') {
        this.at -= 1;
        this.fail(`"," or "${close}" expected`);
      }
    }
  }

  private string(): string {
    const match = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.at));
    if (!match) {
      this.fail('unterminated string');
    }
    this.at += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? '')) {
      this.at += 1;
    }
  }

  private fail(what: string): never {
    throw new Error(`${what} at character ${this.at + 1} of the answer shown`);
  }
}

export function readPattern(text: string): Pattern {
  return new PatternReader(text).read();
}

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
/** A key, secret or uid: a name-like prefix and at least 16 hex digits, one a letter. */
const TOKEN = /^([A-Za-z]*_?)([0-9a-f]{16,})$/;
const STANDARD_SECRET = /^whsec_[A-Za-z0-9+/]+=*$/;

/** Why `actual` does not fit the string the docs show, or null. */
function stringDifference(shown: string, actual: unknown): string | null {
  if (typeof actual !== 'string') {
    return `expected a string, got ${JSON.stringify(actual)}`;
  }
  let fits: boolean;
  if (shown.includes(ELLIPSIS)) {
    const parts = shown.split(ELLIPSIS).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    fits = new RegExp(`^${parts.join('.*')}$`, 's').test(actual);
  } else if (DATETIME.test(shown)) {
    fits = DATETIME.test(actual);
  } else if (STANDARD_SECRET.test(shown) && shown.startsWith('whsec_')) {
    fits = STANDARD_SECRET.test(actual);
  } else {
    const token = TOKEN.exec(shown);
    fits =
      token && /[a-f]/.test(token[2])
        ? new RegExp(`^${token[1]}[0-9a-f]{${token[2].length}}$`).test(actual)
        : shown === actual;
  }
  return fits ? null : `expected ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where and why `actual` does not fit `pattern`, or null when it does. */
export function difference(pattern: Pattern, actual: unknown, path = '$'): string | null {
  switch (pattern.kind) {
    case 'any':
    case 'rest':
      return null;
    case 'literal':
      return Object.is(pattern.value, actual)
        ? null
        : `${path}: expected ${JSON.stringify(pattern.value)}, got ${JSON.stringify(actual)}`;
    case 'string': {
      const why = stringDifference(pattern.value, actual);
      return why ? `${path}: ${why}` : null;
    }
    case 'object': {
      if (!isPlainObject(actual)) {
        return `${path}: expected an object, got ${JSON.stringify(actual)}`;
      }
      const shown = pattern.members.map(([name]) => name);
      for (const [name, member] of pattern.members) {
        if (!(name in actual)) {
          return `${path}: member "${name}" is missing`;
        }
        const why = difference(member, actual[name], `${path}.${name}`);
        if (why) {
          return why;
        }
      }
      const order = Object.keys(actual).filter((name) => shown.includes(name));
      if (order.join() !== shown.join()) {
        return `${path}: members come in the order ${order.join(', ')}, not ${shown.join(', ')}`;
      }
      const extra = Object.keys(actual).filter((name) => !shown.includes(name));
      if (!pattern.open && extra.length > 0) {
        return `${path}: members not shown: ${extra.join(', ')}`;
      }
      return null;
    }
    case 'array':
      if (!Array.isArray(actual)) {
        return `${path}: expected an array, got ${JSON.stringify(actual)}`;
      }
      return arrayDifference(pattern.items, actual, path);
  }
}

function arrayDifference(items: Pattern[], actual: unknown[], path: string): string | null {
  const fits = (item: number, at: number): boolean => {
    if (item === items.length) {
      return at === actual.length;
    }
    if (items[item].kind === 'rest') {
      for (let skip = at; skip <= actual.length; skip += 1) {
        if (fits(item + 1, skip)) {
          return true;
        }
      }
      return false;
    }
    return at < actual.length && !difference(items[item], actual[at]) && fits(item + 1, at + 1);
  };
  if (fits(0, 0)) {
    return null;
  }
  // Said element by element up to the first rest, which is where a reader looks first.
  for (let i = 0; i < items.length && items[i].kind !== 'rest'; i += 1) {
    if (i >= actual.length) {
      return `${path}: ${actual.length} elements, fewer than shown`;
    }
    const why = difference(items[i], actual[i], `${path}[${i}]`);
    if (why) {
      return why;
    }
  }
  return `${path}: ${actual.length} elements do not fit the ${items.length} shown`;
}
