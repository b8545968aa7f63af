/**
 * The parts of twig.js's internals that the sandbox (twig-sandbox.ts) replaces or calls: twig.js
 * declares none of them.
 */

export interface Token {
  type: string;
  value?: unknown;
  key?: string;
  fn?: string;
  filter?: string;
  stack?: Token[];
  params?: Token[];
  expression?: Token[] | boolean;
  output?: Token[];
  token?: Token;
}

export type Stack = unknown[];
export type Context = Record<string, unknown>;
export type Thenable = { then(onResolved: (value: unknown) => unknown): Thenable };

export interface ParseState {
  parseAsync(tokens: Token[], context: Context): Thenable;
}

export interface ExpressionHandler {
  type?: string;
  regex?: RegExp;
  next?: string[];
  compile?: (token: Token, stack: Token[], output: Token[]) => void;
  parse?: (
    this: ParseState,
    token: Token,
    stack: Stack,
    context: Context,
    nextToken?: Token,
  ) => unknown;
}

export type Pair = { start: string; end: string };

/** twig.js's expression token types, plus the two this sandbox adds. */
export interface ExpressionTypes {
  variable: string;
  context: string;
  filter: string;
  slice: string;
  test: string;
  _function: string;
  key: { period: string; brackets: string };
  array: Pair;
  object: Pair;
  parameter: Pair;
  operator: { binary: string; unary: string };
  smsgwPrint: string;
  smsgwLoopGuard: string;
}

export type Filter = (value: unknown, params: unknown[] | false | undefined) => unknown;
export type TwigFunction = (...args: unknown[]) => unknown;
export type ParseMethod = (
  this: ParseState,
  tokens: Token[],
  context: Context,
  async: boolean,
) => unknown;

export interface TwigInternals {
  /** Where twig.js's error constructor, called without `new`, leaves its message. */
  message?: unknown;
  log: { error: (...args: unknown[]) => void };
  Templates: { unRegisterLoader(name: string): void };
  Promise: { resolve(value: unknown): Thenable };
  logic: { handler: Record<string, { compile?: (token: Token) => Token }> };
  expression: {
    handler: Record<string, ExpressionHandler>;
    type: ExpressionTypes;
    extendType(name: string): void;
    extend(definition: ExpressionHandler): void;
    operator: { parse(operator: string, stack: Stack): void };
    parse: (this: ParseState, ...args: unknown[]) => unknown;
    parseAsync(this: ParseState, tokens: Token[], context: Context): Thenable;
  };
  filters: Record<string, Filter>;
  filter: (this: ParseState, name: string, value: unknown, params: unknown[] | false) => unknown;
  functions: Record<string, TwigFunction>;
  tests: Record<string, (value: unknown, params: unknown) => unknown>;
  test: (name: string, value: unknown, params: unknown) => unknown;
  ParseState: { prototype: { parse: ParseMethod } };
}
