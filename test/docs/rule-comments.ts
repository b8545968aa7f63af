import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

/*
 * The numbered rules of docs/api.md and the `// Rule N` comments of the code that cite them,
 * read so that rule-comments.spec.ts can hold one against the other.
 */

/** An operation's name as docs/api.md heads its section: `post_scheduled`, `get_entries`. */
const OPERATION = /^(?:get|post|delete)_\w+$/;

/** The rules of each operation: number → text, numbers as docs/api.md writes them. */
export function readRules(markdown: string): Map<string, Map<number, string>> {
  const rules = new Map<string, Map<number, string>>();
  let current: Map<number, string> | undefined;
  let last: number | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3} (\S+)/.exec(line);
    if (heading) {
      // `## get_entries filters` goes on numbering get_entries' rules.
      const name = heading[1];
      current = OPERATION.test(name) ? (rules.get(name) ?? new Map<number, string>()) : undefined;
      if (current) {
        rules.set(name, current);
      }
      last = undefined;
      continue;
    }
    const rule = /^(\d+)\. (.*)$/.exec(line);
    if (current && rule) {
      last = Number(rule[1]);
      current.set(last, rule[2]);
    } else if (current && last !== undefined && /^ {3}\S/.test(line)) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
    } else if (line.trim() !== '') {
      last = undefined;
    }
  }
  return rules;
}

/** One mention of rules in a comment: `Rule 3`, `rules 1 to 4`, `post_scheduled's rules 2 and 3`. */
export interface Citation {
  /** `src/…` path and line. */
  file: string;
  line: number;
  /** The named functions, methods or constants the comment is in or documents, outermost first. */
  places: Place[];
  /** The operation the comment names, before the rules or at its start, if it names one. */
  operation?: string;
  numbers: number[];
  /** The whole comment, to compare its words with the rule's. */
  comment: string;
  /**
   * The code the comment heads: from its end to the next comment citing rules, or to the end of
   * the declaration it is in.
   */
  code: string;
}

const CITATION =
  /(?:\b((?:get|post|delete)_\w+?)(?:'s?)? |docs\/api\.md#(\w+) )?\b[Rr]ules? (\d+)((?:, \d+)*(?:,? (?:and|to) \d+)?)?(?: of ((?:get|post|delete)_\w+))?/g;

function numbersOf(first: string, rest = ''): number[] {
  const numbers = [Number(first)];
  const range = / to (\d+)$/.exec(rest);
  if (range) {
    for (let n = numbers[0] + 1; n <= Number(range[1]); n++) {
      numbers.push(n);
    }
    return numbers;
  }
  for (const more of rest.matchAll(/\d+/g)) {
    numbers.push(Number(more[0]));
  }
  return numbers;
}

function nameOf(node: ts.Node): string | undefined {
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isPropertySignature(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isClassDeclaration(node)) &&
    node.name &&
    ts.isIdentifier(node.name)
  ) {
    return node.name.text;
  }
  return undefined;
}

/** The operation a comment names first: `/** post_contact: …`, `docs/api.md#post_contact`. */
function operationNamed(comment: string): string | undefined {
  const match =
    /^\/[/*]\**\s*(?:\*\s*)?((?:get|post|delete)_\w+?)(?:'s?)?\b/.exec(comment) ??
    /docs\/api\.md#((?:get|post|delete)_\w+)/.exec(comment);
  return match?.[1];
}

/** A named declaration holding a comment, and the operation its doc comment names. */
export interface Place {
  name: string;
  operation?: string;
  /** Where the declaration ends in its file. */
  end: number;
}

/** The named declarations whose text, leading comments included, holds `position`, outermost first. */
function placesOf(source: ts.SourceFile, position: number): Place[] {
  const places: Place[] = [];
  const visit = (node: ts.Node): void => {
    if (position < node.getFullStart() || position >= node.getEnd()) {
      return;
    }
    const name = nameOf(node);
    // A class or an interface is too wide to say which operation a comment serves.
    if (name && !ts.isClassDeclaration(node) && !ts.isInterfaceDeclaration(node)) {
      const docs = (ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? []).map(
        (range) => source.text.slice(range.pos, range.end),
      );
      places.push({ name, operation: docs.map(operationNamed).find(Boolean), end: node.getEnd() });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return places;
}

/** Every citation of rules in the comments of `path` (a file under `root`). */
export function readCitations(root: string, path: string): Citation[] {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const comments = new Map<number, ts.CommentRange>();
  const collect = (node: ts.Node): void => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ]) {
      comments.set(range.pos, range);
    }
    node.getChildren(source).forEach(collect);
  };
  collect(source);
  const citations: Citation[] = [];
  const citing = [...comments.values()]
    .sort((a, b) => a.pos - b.pos)
    .filter((range) => new RegExp(CITATION.source).test(text.slice(range.pos, range.end)));
  citing.forEach((range, index) => {
    const raw = text.slice(range.pos, range.end);
    const comment = raw.replace(/\s*\n\s*\*?\s*/g, ' ');
    const places = placesOf(source, range.pos);
    const end = Math.min(
      citing[index + 1]?.pos ?? text.length,
      places[places.length - 1]?.end ?? text.length,
    );
    for (const match of comment.matchAll(CITATION)) {
      const words = match[0].split(' ');
      const offset = raw.indexOf(`${words[0]} ${words[1]}`);
      citations.push({
        file: relative(root, path),
        line: source.getLineAndCharacterOfPosition(range.pos + Math.max(offset, 0)).line + 1,
        places,
        operation: match[1] ?? match[2] ?? match[5] ?? operationNamed(raw),
        numbers: numbersOf(match[3], match[4]),
        comment,
        code: text.slice(range.end, Math.max(range.end, end)),
      });
    }
  });
  return citations;
}

/** The TypeScript files under `folder`, specs left out. */
export function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))
    .map((name) => join(folder, name))
    .sort();
}
