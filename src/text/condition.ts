import type { ExpressionNode } from 'expression-language/lib/Parser';
import { DateTime } from 'luxon';
import { compilePhpPattern } from './php-pattern';
import { CONDITION_FUNCTIONS, FunctionScope } from './condition-functions';
import {
  compare,
  entriesOf,
  kindOf,
  looseEquals,
  PhpError,
  strictEquals,
  toBool,
  toInteger,
  toNumber,
  toText,
} from './php-values';
import { runWithin, TimeLimitExceeded } from './time-limit';

/** A conditional group's condition, parsed once and tested against each of the user's contacts. */
export interface CompiledCondition {
  /** Why the condition can select no contact (it does not parse…), or null when it is usable. */
  error: string | null;
  /** Whether the contact belongs to the group; false whenever evaluating the condition fails. */
  matches(contact: Record<string, unknown> | null, metas: Record<string, unknown>): boolean;
}

export interface ConditionOptions {
  /** The zone of "today" for `is_birthday` and `date()`: the service time zone. */
  timeZone?: string;
  /** The clock, for tests. */
  now?: () => Date;
  /** How long a condition with `matches` may take for one contact, in milliseconds. */
  patternTimeoutMs?: number;
}

/** Longer conditions are refused: the longest ones users write fit in a line. */
export const MAX_CONDITION_LENGTH = 1000;
/** A range (`1..n`) holds at most this many numbers. */
export const MAX_RANGE_ITEMS = 10_000;
/**
 * A condition with `matches` is stopped after this long for one contact, unless the caller gives
 * another limit: a pattern can backtrack for ages on some texts, and only a watchdog interrupts a
 * regular expression.
 */
export const PATTERN_CONDITION_TIMEOUT_MS = 50;

const NAMES = ['contact', 'contact_metas'];
const PROPERTY_CALL = 1;
const METHOD_CALL = 2;

/** The parser checks that each called function exists against this list, and only this list. */
const KNOWN_FUNCTIONS: Readonly<Record<string, true>> = Object.assign(
  Object.create(null) as Record<string, true>,
  Object.fromEntries(Object.keys(CONDITION_FUNCTIONS).map((name) => [name, true])),
);

/**
 * Compiles a condition in Symfony ExpressionLanguage syntax, as RaspiSMS's conditional groups
 * use it: `contact` is the contact's data (`contact.gender`), `contact_metas` its row (`id`,
 * `name`, `number`, `created_at`, `updated_at`), plus the functions of RaspiSMS (exists,
 * is_birthday, lower, upper, substr, strlen, abs, date, date_from_format, intval, boolval,
 * count; constant() is null). Values compare as in PHP 8 (`contact.vip == 1` holds for "1").
 *
 * The package's parser reads the syntax; the evaluation is ours, because the package's evaluator
 * gives JavaScript meanings (`'1' + 1` is `'11'`, `null == 0` is false), follows prototypes, calls
 * any method of an object, and its `constant()` reads the process's globals (`process.env`).
 * Here only own properties of the data are read, no method is ever called, ranges are bounded,
 * and a condition using `matches` runs under a watchdog.
 */
export function compileCondition(
  expression: string,
  options: ConditionOptions = {},
): CompiledCondition {
  if (expression.length > MAX_CONDITION_LENGTH) {
    return refused(`The condition is longer than ${MAX_CONDITION_LENGTH} characters.`);
  }
  let tree: ExpressionNode;
  try {
    tree = parse(expression);
  } catch (error) {
    return refused(`The condition does not parse: ${describeSyntaxError(error)}.`);
  }
  const patterns = new Map<string, RegExp>();
  const problem = checkTree(tree, patterns);
  if (problem !== null) {
    return refused(`The condition cannot be used: ${problem}.`);
  }
  const zone = options.timeZone ?? 'UTC';
  const clock = options.now ?? (() => new Date());
  const evaluate = (contact: unknown, metas: unknown): boolean => {
    const scope: Scope = {
      contact,
      metas,
      patterns,
      now: () => DateTime.fromJSDate(clock(), { zone }),
    };
    return toBool(evaluateNode(tree, scope));
  };
  const bounded = usesOperator(tree, 'matches');
  const timeoutMs = options.patternTimeoutMs ?? PATTERN_CONDITION_TIMEOUT_MS;
  return {
    error: null,
    matches(contact, metas) {
      // The watchdog measures wall time: on a busy machine a process held off the CPU can pass
      // the limit on a cheap pattern, which would drop a contact at random. A time-out is tried
      // once more; a pattern that really backtracks exceeds the limit again.
      for (let attempt = bounded ? 2 : 1; attempt > 0; attempt -= 1) {
        try {
          return bounded
            ? runWithin(timeoutMs, () => evaluate(contact, metas))
            : evaluate(contact, metas);
        } catch (error) {
          // A PHP error, the watchdog, or anything else (a stack overflow on absurd data): the
          // contact is excluded, as RaspiSMS excludes it on any exception.
          if (!(error instanceof TimeLimitExceeded)) {
            return false;
          }
        }
      }
      return false;
    },
  };
}

/**
 * The package is loaded at the first condition, not with this file: most processes never read
 * one.
 */
function parse(expression: string): ExpressionNode {
  const { tokenize } = require('expression-language/lib/Lexer') as LexerModule;
  const { default: Parser } = require('expression-language/lib/Parser') as ParserModule;
  return new Parser(KNOWN_FUNCTIONS).parse(tokenize(expression), [...NAMES]);
}

type LexerModule = typeof import('expression-language/lib/Lexer');
type ParserModule = typeof import('expression-language/lib/Parser');

function refused(error: string): CompiledCondition {
  return { error, matches: () => false };
}

function describeSyntaxError(error: unknown): string {
  const { message, cursor } = error as { message?: unknown; cursor?: unknown };
  const text = typeof message === 'string' ? message.replace(/\.$/, '') : String(error);
  return typeof cursor === 'number' ? `${text} around position ${cursor}` : text;
}

/**
 * Refuses what can never work here (method calls: data has no methods) and compiles the
 * patterns written as literals, so that a broken pattern is reported once, not per contact.
 */
function checkTree(node: ExpressionNode, patterns: Map<string, RegExp>): string | null {
  if (node.name === 'GetAttrNode' && node.attributes.type === METHOD_CALL) {
    const method = String(node.nodes.attribute.attributes.value);
    return `it calls the method ${method}(), but a contact's data has no methods`;
  }
  if (node.name === 'BinaryNode' && node.attributes.operator === 'matches') {
    const pattern = node.nodes.right;
    if (pattern.name === 'ConstantNode' && typeof pattern.attributes.value === 'string') {
      try {
        patterns.set(pattern.attributes.value, compilePhpPattern(pattern.attributes.value));
      } catch (error) {
        return (error as Error).message;
      }
    }
  }
  for (const child of Object.values(node.nodes)) {
    const problem = checkTree(child, patterns);
    if (problem !== null) {
      return problem;
    }
  }
  return null;
}

function usesOperator(node: ExpressionNode, operator: string): boolean {
  return (
    (node.name === 'BinaryNode' && node.attributes.operator === operator) ||
    Object.values(node.nodes).some((child) => usesOperator(child, operator))
  );
}

interface Scope extends FunctionScope {
  contact: unknown;
  metas: unknown;
  patterns: Map<string, RegExp>;
}

/** What `a?.b` gives when `a` is null: every attribute read after it is skipped. */
const SHORT_CIRCUIT = Symbol('short circuit');

function evaluateNode(node: ExpressionNode, scope: Scope): unknown {
  switch (node.name) {
    case 'ConstantNode':
      return node.attributes.value;
    case 'NameNode':
      return node.attributes.name === 'contact' ? scope.contact : scope.metas;
    case 'NullCoalescedNameNode':
      return null;
    case 'UnaryNode':
      return evaluateUnary(String(node.attributes.operator), evaluateNode(node.nodes.node, scope));
    case 'BinaryNode':
      return evaluateBinary(node, scope);
    case 'ConditionalNode':
      return toBool(evaluateNode(node.nodes.expr1, scope))
        ? evaluateNode(node.nodes.expr2, scope)
        : evaluateNode(node.nodes.expr3, scope);
    case 'NullCoalesceNode': {
      const value = readAttribute(node.nodes.expr1, scope, true);
      return value === SHORT_CIRCUIT || value === null || value === undefined
        ? evaluateNode(node.nodes.expr2, scope)
        : value;
    }
    case 'ArrayNode':
      return evaluateArray(node, scope);
    case 'FunctionNode':
      return callFunction(node, scope);
    case 'GetAttrNode': {
      const value = readAttribute(node, scope, false);
      return value === SHORT_CIRCUIT ? null : value;
    }
    default:
      throw new PhpError(`the expression holds an unknown ${node.name}`);
  }
}

function evaluateUnary(operator: string, value: unknown): unknown {
  switch (operator) {
    case 'not':
    case '!':
      return !toBool(value);
    case '-':
      return -toNumber(value);
    case '+':
      return toNumber(value);
    case '~':
      return ~toInteger(value);
    default:
      throw new PhpError(`the operator ${operator} is unknown`);
  }
}

/**
 * `a.b`, `a[b]` and `a?.b`: only own properties of hashes and items of lists are read, as PHP
 * reads a decoded JSON object. Reading from anything else is an error, which excludes the contact
 * (so a contact whose data is a list, as RaspiSMS stores `[]`, matches no `contact.x`), except
 * under `??`, where a missing value is null.
 */
function readAttribute(node: ExpressionNode, scope: Scope, lenient: boolean): unknown {
  if (node.name !== 'GetAttrNode') {
    return evaluateNode(node, scope);
  }
  const container = readAttribute(node.nodes.node, scope, lenient);
  if (container === SHORT_CIRCUIT) {
    return SHORT_CIRCUIT;
  }
  const attribute = node.nodes.attribute;
  const kind = kindOf(container);
  if (node.attributes.type === PROPERTY_CALL) {
    const name = String(attribute.attributes.value);
    if (kind === 'null' && attribute.isNullSafe === true) {
      return SHORT_CIRCUIT;
    }
    if (kind === 'hash') {
      return ownValue(container as object, name);
    }
    if (lenient) {
      return null;
    }
    throw new PhpError(`cannot read the property ${name} of ${describeKind(kind)}`);
  }
  if (node.attributes.type === METHOD_CALL) {
    throw new PhpError('methods cannot be called');
  }
  const key = arrayKey(evaluateNode(attribute, scope));
  if (kind === 'list' || kind === 'hash') {
    return ownValue(container as object, key);
  }
  if (lenient) {
    return null;
  }
  throw new PhpError(`cannot read the item ${key} of ${describeKind(kind)}`);
}

function ownValue(container: object, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(container, key)
    ? ((container as Record<string, unknown>)[key] ?? null)
    : null;
}

/** PHP's array keys: integers and strings; null is '', booleans and floats become integers. */
function arrayKey(value: unknown): string {
  switch (kindOf(value)) {
    case 'null':
      return '';
    case 'bool':
    case 'number':
      return String(toInteger(value));
    case 'string':
      return value as string;
    default:
      throw new PhpError('a list, a hash or a date cannot be a key');
  }
}

function describeKind(kind: string): string {
  return kind === 'null' ? 'null' : `a ${kind}`;
}

function evaluateArray(node: ExpressionNode, scope: Scope): unknown {
  const nodes = Object.values(node.nodes);
  if (node.type !== 'Object') {
    const list: unknown[] = [];
    for (let index = 1; index < nodes.length; index += 2) {
      list.push(evaluateNode(nodes[index], scope));
    }
    return list;
  }
  const hash = Object.create(null) as Record<string, unknown>;
  for (let index = 0; index < nodes.length; index += 2) {
    hash[arrayKey(evaluateNode(nodes[index], scope))] = evaluateNode(nodes[index + 1], scope);
  }
  return hash;
}

function callFunction(node: ExpressionNode, scope: Scope): unknown {
  const name = String(node.attributes.name);
  const implementation = Object.prototype.hasOwnProperty.call(CONDITION_FUNCTIONS, name)
    ? CONDITION_FUNCTIONS[name]
    : undefined;
  if (implementation === undefined) {
    throw new PhpError(`the function ${name}() does not exist`);
  }
  const args = Object.values(node.nodes.fnArguments.nodes).map((argument) =>
    evaluateNode(argument, scope),
  );
  return implementation(scope, ...args);
}

function evaluateBinary(node: ExpressionNode, scope: Scope): unknown {
  const operator = String(node.attributes.operator);
  const left = evaluateNode(node.nodes.left, scope);
  switch (operator) {
    case 'or':
    case '||':
      return toBool(left) || toBool(evaluateNode(node.nodes.right, scope));
    case 'and':
    case '&&':
      return toBool(left) && toBool(evaluateNode(node.nodes.right, scope));
    default:
      return applyBinary(operator, left, evaluateNode(node.nodes.right, scope), scope);
  }
}

function applyBinary(operator: string, left: unknown, right: unknown, scope: Scope): unknown {
  switch (operator) {
    case 'xor':
      return toBool(left) !== toBool(right);
    case '==':
      return looseEquals(left, right);
    case '!=':
      return !looseEquals(left, right);
    case '===':
      return strictEquals(left, right);
    case '!==':
      return !strictEquals(left, right);
    case '<':
      return compare(left, right) === -1;
    case '>':
      return compare(left, right) === 1;
    case '<=': {
      const order = compare(left, right);
      return order === -1 || order === 0;
    }
    case '>=': {
      const order = compare(left, right);
      return order === 1 || order === 0;
    }
    case 'in':
      return contains(right, left);
    case 'not in':
      return !contains(right, left);
    case 'matches':
      return patternFor(right, scope).test(toText(left));
    case 'contains':
      return toText(left).includes(toText(right));
    case 'starts with':
      return toText(left).startsWith(toText(right));
    case 'ends with':
      return toText(left).endsWith(toText(right));
    case '~':
      return toText(left) + toText(right);
    case '..':
      return range(left, right);
    default:
      return arithmetic(operator, left, right);
  }
}

function arithmetic(operator: string, left: unknown, right: unknown): number {
  switch (operator) {
    case '+':
      return toNumber(left) + toNumber(right);
    case '-':
      return toNumber(left) - toNumber(right);
    case '*':
      return toNumber(left) * toNumber(right);
    case '/': {
      const divisor = toNumber(right);
      if (divisor === 0) {
        throw new PhpError('division by zero');
      }
      return toNumber(left) / divisor;
    }
    case '%': {
      const divisor = toInteger(right);
      if (divisor === 0) {
        throw new PhpError('modulo by zero');
      }
      return toInteger(left) % divisor;
    }
    case '**':
      return toNumber(left) ** toNumber(right);
    case '|':
      return toInteger(left) | toInteger(right);
    case '&':
      return toInteger(left) & toInteger(right);
    case '^':
      return toInteger(left) ^ toInteger(right);
    case '<<':
      return toInteger(left) << toInteger(right);
    case '>>':
      return toInteger(left) >> toInteger(right);
    default:
      throw new PhpError(`the operator ${operator} is unknown`);
  }
}

/** `in`: PHP's in_array, which compares loosely, over a list's items or a hash's values. */
function contains(haystack: unknown, needle: unknown): boolean {
  const kind = kindOf(haystack);
  if (kind !== 'list' && kind !== 'hash') {
    throw new PhpError('in needs a list or a hash on its right');
  }
  return entriesOf(haystack).some(([, value]) => looseEquals(value ?? null, needle));
}

function patternFor(pattern: unknown, scope: Scope): RegExp {
  if (typeof pattern !== 'string') {
    throw new PhpError('matches needs a pattern on its right');
  }
  const compiled = scope.patterns.get(pattern) ?? compilePhpPattern(pattern);
  compiled.lastIndex = 0;
  return compiled;
}

/** PHP's range(): integers (or single letters) from one end to the other, either way. */
function range(from: unknown, to: unknown): Array<number | string> {
  const letters =
    typeof from === 'string' &&
    typeof to === 'string' &&
    from.length === 1 &&
    to.length === 1 &&
    !/\d/.test(from + to);
  const start = letters ? from.charCodeAt(0) : toNumber(from);
  const end = letters ? to.charCodeAt(0) : toNumber(to);
  const size = Math.floor(Math.abs(end - start)) + 1;
  if (!Number.isFinite(size) || size > MAX_RANGE_ITEMS) {
    throw new PhpError(`a range holds more than ${MAX_RANGE_ITEMS} items`);
  }
  const step = end >= start ? 1 : -1;
  return Array.from({ length: size }, (_, index) =>
    letters ? String.fromCharCode(start + step * index) : start + step * index,
  );
}
