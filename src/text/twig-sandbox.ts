import { factory, TwigTemplate } from 'twig';
import { compilePhpPattern } from './php-pattern';
import { runWithin } from './time-limit';
import { budget, printable, TemplateProblem, weigh, withinBudget } from './twig-bounds';
import { Context, Filter, Thenable, Token, TwigFunction, TwigInternals } from './twig-internals';
import { phpFilters } from './twig-php-filters';

/**
 * A private twig.js instance turned into the sandbox RaspiSMS configures for Twig
 * (docs/dispatch.md#texts): only the tags if/for/set/apply, an allowed list of filters and
 * functions, no method calls, no prototypes, no template loading, no `_context`; and every render
 * bounded in time, loop iterations, value sizes and output length, since twig.js renders
 * synchronously and cannot be interrupted from outside.
 */

/** A template's output is at most this long. */
export const MAX_OUTPUT_LENGTH = 10_000;
/** A range (`1..n`, `range()`) holds at most this many items. */
export const MAX_RANGE_ITEMS = 10_000;
/**
 * All the loops of one render go round at most this many times in all: a message is rendered
 * for each of its recipients, and a round costs twig.js about 5 µs.
 */
export const MAX_ITERATIONS = 1_000;
/** Output produced along the way (loop bodies, captures) before it is joined, in all. */
const MAX_PRODUCED_LENGTH = 10 * MAX_OUTPUT_LENGTH;

const ALLOWED_TAGS = new Set([
  'if',
  'elseif',
  'else',
  'endif',
  'for',
  'endfor',
  'set',
  'setcapture',
  'endset',
  'apply',
  'endapply',
]);
const ALLOWED_TESTS = new Set([
  'defined',
  'empty',
  'odd',
  'even',
  'divisible by',
  'none',
  'null',
  'same as',
  'iterable',
]);

const engine = factory();
let twig!: TwigInternals;
engine.extend((internals) => {
  twig = internals as TwigInternals;
});

const types = twig.expression.type;
const NEVER = /^(?!)/;

// twig.js reports problems on the console and loads templates from files: neither is wanted.
twig.log.error = () => undefined;
twig.Templates.unRegisterLoader('fs');
twig.Templates.unRegisterLoader('ajax');

for (const [type, handler] of Object.entries(twig.logic.handler)) {
  const tag = type.replace('Twig.logic.type.', '');
  if (!ALLOWED_TAGS.has(tag)) {
    handler.compile = () => {
      throw new TemplateProblem(`the tag "${tag}" is not allowed`);
    };
  }
}

/** A value read from data or from the context: own properties only, and never a function. */
function readOwn(container: unknown, key: unknown): unknown {
  if (container === null || typeof container !== 'object' || container instanceof String) {
    return undefined;
  }
  const name = String(key);
  if (!Object.prototype.hasOwnProperty.call(container, name)) {
    return undefined;
  }
  if (Array.isArray(container) && name === 'length') {
    return undefined;
  }
  const value = (container as Record<string, unknown>)[name];
  return typeof value === 'function' ? undefined : value;
}

const handlers = twig.expression.handler;

handlers[types.variable].parse = function (token, stack, context) {
  stack.push(readOwn(context, token.value));
};

/**
 * Whether the token calls what it reads: `a.b(…)` is followed by a parameter list that twig.js
 * marks as an expression, `a['b'](…)` carries the parameters itself.
 */
function isCall(token: Token, nextToken: Token | undefined): boolean {
  return (
    token.params !== undefined ||
    (nextToken?.type === types.parameter.end && nextToken.expression === true)
  );
}

handlers[types.key.period].parse = function (token, stack, _context, nextToken) {
  if (isCall(token, nextToken)) {
    throw new TemplateProblem('methods cannot be called in a template');
  }
  stack.push(readOwn(stack.pop(), token.key));
};

handlers[types.key.brackets].parse = function (token, stack, context, nextToken) {
  if (isCall(token, nextToken)) {
    throw new TemplateProblem('methods cannot be called in a template');
  }
  return twig.expression.parseAsync.call(this, token.stack ?? [], context).then((key) => {
    stack.push(readOwn(stack.pop(), key));
  });
};

/**
 * twig.js writes into compiled tokens while rendering a slice (`x[a:b]`) or a computed hash key
 * (`{(a): b}`), so a second render would reuse the first one's values: those tokens are copied.
 */
for (const type of [types.slice, types.operator.binary]) {
  const handler = handlers[type];
  const parse = handler.parse;
  if (parse === undefined) {
    throw new Error(`twig.js has no parser for ${type}`);
  }
  handler.parse = function (token, stack, context, nextToken) {
    const copy = token.params === undefined ? token : { ...token, params: [...token.params] };
    return parse.call(this, copy, stack, context, nextToken);
  };
}

handlers[types.context].parse = function () {
  throw new TemplateProblem('the variable _context is not allowed');
};

for (const end of [types.array.end, types.object.end]) {
  const handler = handlers[end];
  const build = handler.parse;
  if (build === undefined) {
    throw new Error(`twig.js has no parser for ${end}`);
  }
  handler.parse = function (token, stack, context, nextToken) {
    build.call(this, token, stack, context, nextToken);
    weigh(stack[stack.length - 1]);
  };
}

twig.expression.extendType('smsgwPrint');
twig.expression.extend({
  type: types.smsgwPrint,
  regex: NEVER,
  next: [],
  parse(_token, stack) {
    stack.push(printable(stack.pop()));
  },
});

twig.expression.extendType('smsgwLoopGuard');
twig.expression.extend({
  type: types.smsgwLoopGuard,
  regex: NEVER,
  next: [],
  parse(_token, stack) {
    const spent = budget();
    spent.iterations += loopSize(stack[stack.length - 1]);
    if (spent.iterations > MAX_ITERATIONS) {
      throw new TemplateProblem(`The template loops more than ${MAX_ITERATIONS} times`);
    }
  },
});

/** How many times twig.js's `for` goes round: a list's items, a hash's `_keys` or own keys. */
function loopSize(sequence: unknown): number {
  if (Array.isArray(sequence)) {
    return sequence.length;
  }
  if (sequence === null || typeof sequence !== 'object') {
    return 0;
  }
  const keys = (sequence as { _keys?: unknown })._keys;
  if (keys === undefined) {
    return Object.keys(sequence).length;
  }
  const length = keys === null ? undefined : (keys as { length?: unknown }).length;
  return typeof length === 'number' && Number.isFinite(length) ? length : Infinity;
}

const patterns = new Map<string, RegExp>();

function patternFor(pattern: unknown): RegExp {
  if (typeof pattern !== 'string') {
    throw new TemplateProblem('matches needs a pattern on its right');
  }
  let compiled = patterns.get(pattern);
  if (compiled === undefined) {
    compiled = compilePhpPattern(pattern);
    if (patterns.size < 1000) {
      patterns.set(pattern, compiled);
    }
  }
  compiled.lastIndex = 0;
  return compiled;
}

const applyOperator = twig.expression.operator.parse.bind(twig.expression.operator);
twig.expression.operator.parse = (operator, stack) => {
  switch (operator) {
    case '~': {
      const right = stack.pop();
      stack.push(weigh(printable(stack.pop()) + printable(right)));
      return;
    }
    case '..': {
      const high = stack.pop();
      stack.push(boundedRange(stack.pop(), high));
      return;
    }
    case 'matches': {
      const pattern = stack.pop();
      stack.push(patternFor(pattern).test(printable(stack.pop())));
      return;
    }
    default:
      applyOperator(operator, stack);
      weigh(stack[stack.length - 1]);
  }
};

const range = twig.functions.range;

/** twig.js's range(), refused when it would hold too many items or never end. */
function boundedRange(low: unknown, high: unknown, step?: unknown): unknown {
  const walker = step === undefined || step === null || step === 0 ? 1 : Number(step);
  const letters = Number.isNaN(Number(low)) && Number.isNaN(Number(high));
  const from = letters ? String(low).charCodeAt(0) : parseInt(String(low), 10);
  const to = letters ? String(high).charCodeAt(0) : parseInt(String(high), 10);
  if (!(walker > 0) || !Number.isFinite(walker)) {
    throw new TemplateProblem('a range needs a positive step');
  }
  if (Number.isNaN(from) || Number.isNaN(to)) {
    throw new TemplateProblem('a range goes from a number to a number, or a letter to a letter');
  }
  const size = Math.floor(Math.abs(to - from) / walker) + 1;
  if (!Number.isFinite(size) || size > MAX_RANGE_ITEMS) {
    throw new TemplateProblem(`The template builds a range of more than ${MAX_RANGE_ITEMS} items`);
  }
  return range(low, high, walker);
}

const FUNCTIONS: Readonly<Record<string, TwigFunction>> = Object.assign(
  Object.create(null) as Record<string, TwigFunction>,
  {
    date: (...args: unknown[]) => twig.functions.date(...args),
    max: (...args: unknown[]) => twig.functions.max(...args),
    min: (...args: unknown[]) => twig.functions.min(...args),
    random: (...args: unknown[]) => twig.functions.random(...args),
    range: boundedRange,
  },
);

handlers[types._function].parse = function (token, stack, context) {
  const name = token.fn ?? '';
  const implementation = FUNCTIONS[name];
  if (implementation === undefined) {
    throw new TemplateProblem(`the function "${name}" is not allowed`);
  }
  const parameters = token.params
    ? twig.expression.parseAsync.call(this, token.params, context)
    : twig.Promise.resolve([]);
  return parameters.then((args) => {
    stack.push(weigh(implementation(...(Array.isArray(args) ? (args as unknown[]) : []))));
  });
};

const FILTERS: Readonly<Record<string, Filter>> = Object.assign(
  Object.create(null) as Record<string, Filter>,
  Object.fromEntries(
    [
      'abs',
      'capitalize',
      'date',
      'default',
      'escape',
      'first',
      'json_encode',
      'keys',
      'last',
      'length',
      'lower',
      'reverse',
      'slice',
      'sort',
      'spaceless',
      'split',
      'upper',
      'url_encode',
    ].map((name): [string, Filter] => [name, twig.filters[name]]),
  ),
  phpFilters(twig.filters),
);

twig.filter = function (name, value, params) {
  const filter = FILTERS[name];
  if (filter === undefined) {
    throw new TemplateProblem(`the filter "${name}" is not allowed`);
  }
  return weigh(filter.call(this, value, params));
};

twig.test = (name, value, params) => {
  if (!ALLOWED_TESTS.has(name)) {
    throw new TemplateProblem(`the test "${name}" is not allowed`);
  }
  return twig.tests[name](value, params);
};

const parseTokens = twig.ParseState.prototype.parse;
twig.ParseState.prototype.parse = function (tokens, context, async) {
  const spent = budget();
  spent.checkTime();
  const result = parseTokens.call(this, tokens, context, async);
  const count = (output: unknown): unknown => {
    const length = typeof output === 'string' || output instanceof String ? output.length : 0;
    spent.produced += length;
    if (length > MAX_OUTPUT_LENGTH || spent.produced > MAX_PRODUCED_LENGTH) {
      throw new TemplateProblem(`The template renders more than ${MAX_OUTPUT_LENGTH} characters`);
    }
    return output;
  };
  return async ? (result as Thenable).then(count) : count(result);
};

const parseExpression = twig.expression.parse;
twig.expression.parse = function (...args) {
  budget().checkTime();
  return parseExpression.apply(this, args);
};

/** A compiled template, ready to render any number of times. */
export interface SandboxedTemplate {
  /**
   * Renders with the variables within `timeLimitMs`; throws a TemplateProblem, a
   * TimeLimitExceeded or twig.js's own error when it fails.
   */
  render(variables: Context, timeLimitMs: number): string;
}

/** Compiles a template, or throws a TemplateProblem or twig.js's error when it cannot. */
export function compileSandboxed(source: string): SandboxedTemplate {
  let template: TwigTemplate;
  try {
    template = engine.twig({
      data: source,
      rethrow: true,
      autoescape: false,
      strict_variables: false,
      allowInlineIncludes: false,
    });
  } catch (error) {
    // For an unclosed string, twig.js calls its error constructor without `new`: the message
    // lands on its internals and `undefined` is thrown.
    if (error === undefined) {
      throw new TemplateProblem(typeof twig.message === 'string' ? twig.message : 'unknown error');
    }
    throw error;
  }
  const tokens = template.tokens as Token[];
  const usesPatterns = inspect(tokens);
  instrument(tokens);
  return {
    render(variables, timeLimitMs) {
      return withinBudget(timeLimitMs, () =>
        // Only a watchdog stops a pattern that backtracks without end; it costs about 50 µs a
        // render, so templates without `matches` rely on the budget's own checks.
        usesPatterns
          ? runWithin(timeLimitMs, () => template.render(variables))
          : template.render(variables),
      );
    },
  };
}

/**
 * Refuses, before any render, what the sandbox forbids (filters, functions, tests, `_context`,
 * method calls) wherever it hides in the compiled tokens. Returns whether `matches` is used.
 */
function inspect(tokens: Token[]): boolean {
  let usesPatterns = false;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') {
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((item: unknown, index) => {
        const next: unknown = node[index + 1];
        if (isToken(item) && isAccess(item) && isCall(item, isToken(next) ? next : undefined)) {
          throw new TemplateProblem('methods cannot be called in a template');
        }
        visit(item);
      });
      return;
    }
    const token = node as Token;
    switch (token.type) {
      case types.filter:
      case types.slice:
        if (FILTERS[String(token.value)] === undefined) {
          throw new TemplateProblem(`the filter "${String(token.value)}" is not allowed`);
        }
        break;
      case types._function:
        if (FUNCTIONS[token.fn ?? ''] === undefined) {
          throw new TemplateProblem(`the function "${token.fn ?? ''}" is not allowed`);
        }
        break;
      case types.test:
        if (!ALLOWED_TESTS.has(token.filter ?? '')) {
          throw new TemplateProblem(`the test "${token.filter ?? ''}" is not allowed`);
        }
        break;
      case types.context:
        throw new TemplateProblem('the variable _context is not allowed');
      case types.operator.binary:
        usesPatterns ||= token.value === 'matches';
        break;
      default:
        break;
    }
    Object.values(token).forEach(visit);
  };
  visit(tokens);
  return usesPatterns;
}

function isToken(value: unknown): value is Token {
  return value !== null && typeof value === 'object' && typeof (value as Token).type === 'string';
}

function isAccess(token: Token): boolean {
  return (
    token.type === types.variable ||
    token.type === types.key.period ||
    token.type === types.key.brackets
  );
}

const OUTPUT_TYPES = new Set([
  'output',
  'output_whitespace_pre',
  'output_whitespace_post',
  'output_whitespace_both',
]);

/** Adds the printing step to every `{{ }}` and the loop guard to every `for`. */
function instrument(tokens: Token[]): void {
  for (const token of tokens) {
    if (OUTPUT_TYPES.has(token.type)) {
      token.stack?.push({ type: types.smsgwPrint });
    }
    const logic = token.type === 'logic' ? token.token : undefined;
    if (logic?.type === 'Twig.logic.type.for' && Array.isArray(logic.expression)) {
      logic.expression.push({ type: types.smsgwLoopGuard });
    }
    if (logic?.output !== undefined) {
      instrument(logic.output);
    }
  }
}
