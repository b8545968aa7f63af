import Database from 'better-sqlite3';
import busboy from 'busboy';
import csvParser from 'csv-parser';
import { tokenize } from 'expression-language/lib/Lexer';
import Parser, { ExpressionNode } from 'expression-language/lib/Parser';
import strtotime from 'locutus/php/datetime/strtotime';
import sprintf from 'locutus/php/strings/sprintf';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, Server as HttpServer, ServerResponse } from 'node:http';
import { AddressInfo, connect as connectTcp, LookupFunction, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PoolConnection } from 'mysql2';
import {
  connect as connectSmpp,
  createServer as createSmsc,
  encodings,
  errors,
  PDU,
  Session,
} from 'smpp';
import { factory, TwigInstance } from 'twig';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, QueryFailedError } from 'typeorm';
import { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver';
import { MysqlDriver } from 'typeorm/driver/mysql/MysqlDriver';
import { createTestDatabase, DATABASE_KINDS, TestDatabase } from '../support/databases';

/*
 * What smsgw relies on inside the dependencies that package.json pins to exact versions
 * (docs/dependencies.md): deep imports, private fields, hooks it wraps, undocumented behaviour.
 * Each test names the code that relies on it. Run this file after changing a pinned version: a
 * failure here points at the code to revisit before the pin moves.
 */

@Entity('pinned_row')
class PinnedRow {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 40 })
  name!: string;
}

const CREATE_PINNED_ROW = {
  sqlite:
    'CREATE TABLE pinned_row (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR(40) NOT NULL)',
  mariadb: 'CREATE TABLE pinned_row (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(40) NOT NULL)',
};

afterEach(() => {
  jest.restoreAllMocks();
});

describe('typeorm: the better-sqlite3 driver', () => {
  let folder: string;
  let dataSource: DataSource;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-pinned-'));
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: join(folder, 'pinned.sqlite'),
      entities: [PinnedRow],
      synchronize: false,
    });
    await dataSource.initialize();
    await dataSource.query(CREATE_PINNED_ROW.sqlite);
  });
  afterAll(async () => {
    await dataSource.destroy();
    rmSync(folder, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await dataSource.query('DELETE FROM pinned_row');
  });

  const names = async (): Promise<string[]> =>
    (
      await dataSource.query<Array<{ name: string }>>('SELECT name FROM pinned_row ORDER BY id')
    ).map((row) => row.name);

  it('exposes the connection it opened as driver.databaseConnection, in a transaction while TypeORM holds one (sqlite-connection.ts, bench/seed.ts)', async () => {
    expect(dataSource.driver).toBeInstanceOf(BetterSqlite3Driver);
    const db = (dataSource.driver as BetterSqlite3Driver).databaseConnection as Database.Database;
    expect(db).toBeInstanceOf(Database);
    expect(db.open).toBe(true);

    db.prepare('INSERT INTO pinned_row (name) VALUES (?)').run('direct');
    expect(await names()).toEqual(['direct']);

    const seen: boolean[] = [db.inTransaction];
    await dataSource.transaction(async (manager) => {
      await manager.query('INSERT INTO pinned_row (name) VALUES (?)', ['typeorm']);
      seen.push(db.inTransaction);
    });
    seen.push(db.inTransaction);
    expect(seen).toEqual([false, true, false]);
    expect(db.prepare('SELECT name FROM pinned_row ORDER BY id').all()).toEqual([
      { name: 'direct' },
      { name: 'typeorm' },
    ]);
  });

  it('hands every caller one shared query runner, which release() leaves usable (sqlite-serializer.ts)', async () => {
    const runner = dataSource.createQueryRunner();
    expect(dataSource.createQueryRunner()).toBe(runner);
    expect(dataSource.manager.connection.createQueryRunner()).toBe(runner);
    await runner.release();
    expect(await runner.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    expect(dataSource.createQueryRunner()).toBe(runner);
  });

  it("runs dataSource.transaction through the manager's own `transaction` and the shared runner's own methods (sqlite-serializer.ts)", async () => {
    const runner = dataSource.createQueryRunner();
    const transaction = jest.spyOn(dataSource.manager, 'transaction');
    const start = jest.spyOn(runner, 'startTransaction');
    const commit = jest.spyOn(runner, 'commitTransaction');
    const rollback = jest.spyOn(runner, 'rollbackTransaction');
    const query = jest.spyOn(runner, 'query');
    const active: boolean[] = [];

    await dataSource.transaction(async (manager) => {
      active.push(runner.isTransactionActive);
      expect(manager.queryRunner).toBe(runner);
      await manager.query('INSERT INTO pinned_row (name) VALUES (?)', ['kept']);
    });
    active.push(runner.isTransactionActive);
    await expect(
      dataSource.transaction(async (manager) => {
        await manager.query('INSERT INTO pinned_row (name) VALUES (?)', ['undone']);
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    active.push(runner.isTransactionActive);

    expect(transaction).toHaveBeenCalledTimes(2);
    expect(start).toHaveBeenCalledTimes(2);
    expect(commit).toHaveBeenCalledTimes(1);
    expect(rollback).toHaveBeenCalledTimes(1);
    expect(active).toEqual([true, false, false]);
    // The serializer's own `query` must see the transaction's statements, BEGIN included.
    const statements = query.mock.calls.map(([sql]) => sql);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^BEGIN/),
        'INSERT INTO pinned_row (name) VALUES (?)',
        'COMMIT',
        'ROLLBACK',
      ]),
    );
    expect(start.mock.invocationCallOrder[0]).toBeLessThan(commit.mock.invocationCallOrder[0]);
    expect(await names()).toEqual(['kept']);
  });

  it('saves outside any transaction by starting one on the shared runner (sqlite-serializer.ts)', async () => {
    const runner = dataSource.createQueryRunner();
    const start = jest.spyOn(runner, 'startTransaction');
    const commit = jest.spyOn(runner, 'commitTransaction');
    await dataSource.getRepository(PinnedRow).save({ name: 'saved' });
    expect(start).toHaveBeenCalledTimes(1);
    expect(commit).toHaveBeenCalledTimes(1);
    expect(await names()).toEqual(['saved']);
  });

  it('answers a structured query with the rows of a read and the last rowid of a write, and manager.query with that rowid (runner.ts runOn, group-commit.ts insertWith)', async () => {
    const runner = dataSource.createQueryRunner();
    const written = await runner.query(
      'INSERT INTO pinned_row (name) VALUES (?), (?)',
      ['first', 'second'],
      true,
    );
    const ids = (
      await dataSource.query<Array<{ id: number }>>('SELECT id FROM pinned_row ORDER BY id')
    ).map((row) => row.id);
    expect(written.affected).toBe(2);
    expect(typeof written.raw).toBe('number');
    expect(Number(written.raw) - 2 + 1).toBe(ids[0]);

    const read = await runner.query('SELECT name FROM pinned_row ORDER BY id', [], true);
    expect(read.raw).toEqual([{ name: 'first' }, { name: 'second' }]);

    const id: unknown = await dataSource.manager.query('INSERT INTO pinned_row (name) VALUES (?)', [
      'third',
    ]);
    expect(id).toBe(ids[1] + 1);
  });

  it("copies the driver error's own fields onto QueryFailedError, beside query, parameters and driverError (api-exception.filter.ts, logging.module.ts, sqlite-connection.ts)", async () => {
    const failure: unknown = await dataSource
      .query('INSERT INTO pinned_row (name) VALUES (?)', [null])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({
      code: 'SQLITE_CONSTRAINT_NOTNULL',
      query: 'INSERT INTO pinned_row (name) VALUES (?)',
      parameters: [null],
      driverError: expect.objectContaining({ name: 'SqliteError' }),
    });

    // The driver runners wrap better-sqlite3's errors themselves, with the same constructor.
    const db = (dataSource.driver as BetterSqlite3Driver).databaseConnection as Database.Database;
    let driverError: unknown;
    try {
      db.prepare('SELECT * FROM no_such_table').all();
    } catch (error) {
      driverError = error;
    }
    const wrapped = new QueryFailedError('SELECT * FROM no_such_table', [], driverError as Error);
    expect(wrapped).toMatchObject({ code: 'SQLITE_ERROR', driverError });
    expect(typeof dataSource.logger.logQuery).toBe('function');
    expect(typeof dataSource.logger.logQueryError).toBe('function');
  });
});

const describeOnMysql = DATABASE_KINDS.includes('mariadb') ? describe : describe.skip;

describeOnMysql('typeorm: the mysql driver', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('mariadb');
    dataSource = new DataSource({
      type: 'mysql',
      url: database.url,
      charset: 'utf8mb4',
      dateStrings: true,
      timezone: 'Z',
      extra: { connectionLimit: 2 },
      entities: [PinnedRow],
      synchronize: false,
    });
    await dataSource.initialize();
    await dataSource.query(CREATE_PINNED_ROW.mariadb);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const query = (connection: PoolConnection, sql: string, parameters: unknown[] = []) =>
    new Promise<unknown>((resolve, reject) =>
      connection.query(sql, parameters, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );

  it('lends a connection of the mysql2 pool it configured through obtainMasterConnection (mysql-connection.ts)', async () => {
    expect(dataSource.driver).toBeInstanceOf(MysqlDriver);
    const connection = (await (
      dataSource.driver as MysqlDriver
    ).obtainMasterConnection()) as PoolConnection;
    try {
      // dateStrings reached the pool: datetimes come back as the text written.
      expect(
        await query(connection, "SELECT CAST('2026-01-02 03:04:05' AS DATETIME) AS at"),
      ).toEqual([{ at: '2026-01-02 03:04:05' }]);
      const header = await query(connection, 'INSERT INTO pinned_row (name) VALUES (?), (?)', [
        'first',
        'second',
      ]);
      const ids = (
        (await query(connection, 'SELECT id FROM pinned_row ORDER BY id')) as Array<{ id: number }>
      ).map((row) => row.id);
      expect(header).toMatchObject({ affectedRows: 2, insertId: ids[0] });
    } finally {
      connection.release();
    }
  });

  it('answers a structured write with the header, and manager.query with the header (runner.ts runOn, group-commit.ts insertWith)', async () => {
    const runner = dataSource.createQueryRunner();
    try {
      const written = await runner.query(
        'INSERT INTO pinned_row (name) VALUES (?), (?)',
        ['third', 'fourth'],
        true,
      );
      expect(written.raw).toMatchObject({ affectedRows: 2, insertId: expect.any(Number) });
      const read = await runner.query('SELECT COUNT(*) AS n FROM pinned_row', [], true);
      expect(Array.isArray(read.raw)).toBe(true);
    } finally {
      await runner.release();
    }
    const header = await dataSource.manager.query('INSERT INTO pinned_row (name) VALUES (?)', [
      'fifth',
    ]);
    expect(header).toMatchObject({ affectedRows: 1, insertId: expect.any(Number) });
  });

  it("copies mysql2's error fields onto QueryFailedError, sql included (api-exception.filter.ts, logging.module.ts)", async () => {
    const failure: unknown = await dataSource
      .query('INSERT INTO pinned_row (name) VALUES (?)', [null])
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(QueryFailedError);
    expect(failure).toMatchObject({
      code: 'ER_BAD_NULL_ERROR',
      query: 'INSERT INTO pinned_row (name) VALUES (?)',
      parameters: [null],
      sql: expect.stringContaining('INSERT INTO pinned_row'),
      driverError: expect.anything(),
    });
  });
});

/** The parts of twig.js's internals that twig-sandbox.ts replaces or wraps. */
interface Handler {
  parse?: (...args: unknown[]) => unknown;
  compile?: (...args: unknown[]) => unknown;
}

interface TwigInternals {
  message?: unknown;
  log: { error: unknown };
  Templates: { isRegisteredLoader(name: string): boolean };
  Promise: { resolve(value: unknown): { then: unknown } };
  logic: { handler: Record<string, Handler> };
  expression: {
    handler: Record<string, Handler>;
    type: Record<string, string> & {
      key: Record<string, string>;
      array: Record<string, string>;
      object: Record<string, string>;
      parameter: Record<string, string>;
      operator: Record<string, string>;
    };
    extendType(name: string): void;
    extend(definition: {
      type: string;
      regex: RegExp;
      next: string[];
      parse(token: unknown, stack: unknown[]): void;
    }): void;
    operator: { parse(operator: string, stack: unknown[]): void };
    parse(...args: unknown[]): unknown;
    parseAsync(...args: unknown[]): unknown;
  };
  filters: Record<string, (...args: unknown[]) => unknown>;
  filter(...args: unknown[]): unknown;
  functions: Record<string, (...args: unknown[]) => unknown>;
  tests: Record<string, (...args: unknown[]) => unknown>;
  test(...args: unknown[]): unknown;
  ParseState: { prototype: { parse(...args: unknown[]): unknown } };
}

interface Token {
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

/** A new twig.js instance and its internals, as twig-sandbox.ts gets its own. */
function freshTwig(): { engine: TwigInstance; twig: TwigInternals } {
  const engine = factory();
  let twig: TwigInternals | undefined;
  engine.extend((internals) => {
    twig = internals as TwigInternals;
  });
  if (twig === undefined) {
    throw new Error('extend() did not call back synchronously');
  }
  return { engine, twig };
}

function compile(engine: TwigInstance, data: string) {
  return engine.twig({ data, rethrow: true, autoescape: false, strict_variables: false });
}

describe('twig: the internals twig-sandbox.ts changes', () => {
  it('gives each factory() instance internals of its own, untouched by changes to another', () => {
    const changed = freshTwig();
    const other = freshTwig();
    expect(changed.twig).not.toBe(other.twig);
    changed.twig.filters.upper = () => 'changed';
    expect(compile(changed.engine, '{{ "a"|upper }}').render({})).toBe('changed');
    expect(compile(other.engine, '{{ "a"|upper }}').render({})).toBe('A');
  });

  it('has every internal the sandbox replaces, by the names it uses', () => {
    const { twig } = freshTwig();
    const types = twig.expression.type;
    expect(typeof twig.log.error).toBe('function');
    expect(twig.Templates.isRegisteredLoader('fs')).toBe(true);
    expect(twig.Templates.isRegisteredLoader('ajax')).toBe(true);
    expect(typeof twig.Promise.resolve(1).then).toBe('function');
    // Tags are recognised by the name after this prefix: an unknown name is refused.
    for (const tag of ['if', 'for', 'set', 'apply', 'include', 'macro', 'import', 'embed']) {
      expect(typeof twig.logic.handler[`Twig.logic.type.${tag}`]?.compile).toBe('function');
    }
    for (const type of [
      types.variable,
      types.context,
      types.slice,
      types._function,
      types.key.period,
      types.key.brackets,
      types.array.end,
      types.object.end,
      types.operator.binary,
    ]) {
      expect(typeof type).toBe('string');
      expect(typeof twig.expression.handler[type]?.parse).toBe('function');
    }
    for (const type of [types.filter, types.test, types.parameter.end, types.operator.unary]) {
      expect(typeof type).toBe('string');
    }
    for (const method of ['extendType', 'extend', 'parse', 'parseAsync'] as const) {
      expect(typeof twig.expression[method]).toBe('function');
    }
    expect(typeof twig.expression.operator.parse).toBe('function');
    expect(typeof twig.filter).toBe('function');
    expect(typeof twig.test).toBe('function');
    expect(typeof twig.ParseState.prototype.parse).toBe('function');
    for (const name of [
      'abs',
      'capitalize',
      'date',
      'default',
      'escape',
      'first',
      'format',
      'join',
      'json_encode',
      'keys',
      'last',
      'length',
      'lower',
      'number_format',
      'reverse',
      'round',
      'slice',
      'sort',
      'spaceless',
      'split',
      'upper',
      'url_encode',
    ]) {
      expect(typeof twig.filters[name]).toBe('function');
    }
    for (const name of ['date', 'max', 'min', 'random', 'range']) {
      expect(typeof twig.functions[name]).toBe('function');
    }
    for (const name of [
      'defined',
      'empty',
      'odd',
      'even',
      'divisible by',
      'none',
      'null',
      'same as',
      'iterable',
    ]) {
      expect(typeof twig.tests[name]).toBe('function');
    }
  });

  it("renders through the instance's own hooks, so that replacing them takes effect", () => {
    const { engine, twig } = freshTwig();
    const types = twig.expression.type;
    const handlers = twig.expression.handler;
    const spies = {
      'ParseState.prototype.parse': jest.spyOn(twig.ParseState.prototype, 'parse'),
      'expression.parse': jest.spyOn(twig.expression, 'parse'),
      'expression.operator.parse': jest.spyOn(twig.expression.operator, 'parse'),
      filter: jest.spyOn(twig, 'filter'),
      test: jest.spyOn(twig, 'test'),
      ...Object.fromEntries(
        [
          types.variable,
          types.context,
          types.slice,
          types._function,
          types.key.period,
          types.key.brackets,
          types.array.end,
          types.object.end,
          types.operator.binary,
        ].map((type) => [type, jest.spyOn(handlers[type] as Required<Handler>, 'parse')]),
      ),
    };
    const template = compile(
      engine,
      "{% for x in [1, 2] %}{{ x is odd ? c.n|upper : c['n'] ~ max(1, 2) }}{% endfor %}" +
        "{{ 'abc'[1:1] }}{{ {(c.n): 1}|length }}{{ (1..2)|join }}{{ _context.c.n }}",
    );
    expect(template.render({ c: { n: 'ab' } })).toBe('ABab2b112ab');
    for (const [name, spy] of Object.entries(spies)) {
      expect([name, spy.mock.calls.length > 0]).toEqual([name, true]);
    }
    expect(spies.filter.mock.calls.map((call) => call.slice(0, 2))).toContainEqual(['upper', 'ab']);
    expect(spies.test.mock.calls.map((call) => call.slice(0, 2))).toContainEqual(['odd', 1]);
    expect(spies['expression.operator.parse'].mock.calls.map(([operator]) => operator)).toEqual(
      expect.arrayContaining(['~', '..']),
    );
  });

  it('compiles into the tokens the sandbox inspects and instruments', () => {
    const { engine, twig } = freshTwig();
    const types = twig.expression.type;
    const stackOf = (source: string) => (compile(engine, source).tokens as Token[])[0].stack;

    // A call after a period: the parameter list ends in an expression-marked token.
    expect(stackOf('{{ a.b(1) }}')).toMatchObject([
      { type: types.variable, value: 'a' },
      { type: types.key.period, key: 'b' },
      { type: types.parameter.end, expression: true },
    ]);
    // A call after brackets: the brackets carry the parameters.
    expect(stackOf("{{ a['b'](1) }}")?.[1]).toMatchObject({
      type: types.key.brackets,
      params: expect.any(Array),
    });
    expect(stackOf('{{ a.b }}')?.[1]).not.toHaveProperty('params');
    expect(stackOf('{{ x|upper }}')?.[1]).toMatchObject({ type: types.filter, value: 'upper' });
    expect(stackOf("{{ 'abc'[1:2] }}")?.[1]).toMatchObject({ type: types.slice });
    expect(stackOf('{{ range(1, 2) }}')?.[0]).toMatchObject({ type: types._function, fn: 'range' });
    expect(stackOf('{{ x is odd }}')?.[1]).toMatchObject({ type: types.test, filter: 'odd' });
    expect(stackOf("{{ x matches '/a/' }}")?.[2]).toMatchObject({
      type: types.operator.binary,
      value: 'matches',
    });
    expect(stackOf('{{ _context }}')?.[0]).toMatchObject({ type: types.context });
    expect((compile(engine, '{{- x }}').tokens as Token[])[0].type).toBe('output_whitespace_pre');
    expect((compile(engine, '{{ x -}}').tokens as Token[])[0].type).toBe('output_whitespace_post');
    expect((compile(engine, '{{- x -}}').tokens as Token[])[0].type).toBe('output_whitespace_both');

    const [loop] = compile(engine, '{% for x in xs %}{{ x }}{% endfor %}').tokens as Token[];
    expect(loop).toMatchObject({
      type: 'logic',
      token: {
        type: 'Twig.logic.type.for',
        expression: [{ type: types.variable, value: 'xs' }],
        output: [{ type: 'output', stack: [{ type: types.variable, value: 'x' }] }],
      },
    });
  });

  it("runs an added token type pushed after compiling onto an output's stack or a for's expression, with the sequence on top of the stack", () => {
    const { engine, twig } = freshTwig();
    const seen: unknown[] = [];
    twig.expression.extendType('pinnedProbe');
    const probe = twig.expression.type.pinnedProbe;
    twig.expression.extend({
      type: probe,
      regex: /^(?!)/,
      next: [],
      parse(_token, stack) {
        seen.push(stack[stack.length - 1]);
      },
    });
    const template = compile(engine, '{% for x in xs %}{{ x }}{% endfor %}');
    const loop = (template.tokens as Token[])[0].token as Token;
    (loop.expression as Token[]).push({ type: probe });
    loop.output?.[0].stack?.push({ type: probe });
    expect(template.render({ xs: [1, 2] })).toBe('12');
    expect(seen).toEqual([[1, 2], 1, 2]);
  });

  it('loops over a hash as many times as its _keys, in their order (twig-sandbox.ts loopSize)', () => {
    const { engine } = freshTwig();
    const template = compile(engine, '{% for k, v in h %}{{ k }}{{ v }};{% endfor %}');
    expect(template.render({ h: { a: 1, b: 2, _keys: ['b', 'a'] } })).toBe('b2;a1;');
    expect(template.render({ h: { a: 1, b: 2 } })).toBe('a1;b2;');
  });

  it('throws undefined for an unclosed string and leaves the message on its internals (twig-sandbox.ts compileSandboxed)', () => {
    const { engine, twig } = freshTwig();
    let thrown: unknown = 'nothing thrown';
    try {
      compile(engine, "{{ 'abc }}");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeUndefined();
    expect(twig.message).toBe('Unclosed string in template');
  });
});

describe('locutus: strtotime and sprintf', () => {
  /** 18 March 2026, 15:30:00 in the zone of the process, as the callers hand it over. */
  const now = Math.floor(new Date(2026, 2, 18, 15, 30, 0).getTime() / 1000);
  const local = (seconds: number | false) =>
    seconds === false ? false : new Date(seconds * 1000).toString();

  it("reads PHP's relative dates in the zone of the process (common/time/php-date.ts)", () => {
    expect(typeof strtotime).toBe('function');
    expect(local(strtotime('today', now))).toBe(new Date(2026, 2, 18).toString());
    expect(local(strtotime('-24 hours', now))).toBe(new Date(2026, 2, 17, 15, 30).toString());
    expect(local(strtotime('this week midnight', now))).toBe(new Date(2026, 2, 16).toString());
    expect(local(strtotime('first day of this month midnight', now))).toBe(
      new Date(2026, 2, 1).toString(),
    );
    expect(local(strtotime('first day of this month midnight -1 month', now))).toBe(
      new Date(2026, 1, 1).toString(),
    );
    expect(strtotime('not a date', now)).toBe(false);
  });

  it("is the sprintf of twig's format filter, reading specs as twig-sandbox.ts's SPRINTF_SPECS does", () => {
    const { twig } = freshTwig();
    const cases: Array<[string, Array<string | number>, string]> = [
      ['%2$s-%1$s', ['a', 'b'], 'b-a'],
      ["%'*6s", ['ab'], '****ab'],
      ['%-6s|', ['ab'], 'ab    |'],
      ['%08.3f', [3.14159], '0003.142'],
      ['%%%d', [5], '%5'],
    ];
    for (const [format, args, expected] of cases) {
      expect(sprintf(format, ...args)).toBe(expected);
      expect(twig.filters.format(format, args)).toBe(expected);
    }
  });
});

describe('expression-language: the lexer and parser condition.ts reads', () => {
  const FUNCTIONS = Object.assign(Object.create(null) as Record<string, true>, { upper: true });
  const parse = (expression: string): ExpressionNode =>
    new Parser(FUNCTIONS).parse(tokenize(expression), ['contact', 'contact_metas']);
  const constant = (value: unknown) => ({ name: 'ConstantNode', attributes: { value } });
  const contactAttribute = (type: number, name: string) => ({
    name: 'GetAttrNode',
    attributes: { type },
    nodes: {
      node: { name: 'NameNode', attributes: { name: 'contact' } },
      attribute: constant(name),
    },
  });

  it('keeps the expression on the token stream', () => {
    expect(tokenize('contact.a + 1').expression).toBe('contact.a + 1');
  });

  it('builds nodes by class name, with their attributes and children where condition.ts reads them', () => {
    expect(parse('contact.a')).toMatchObject(contactAttribute(1, 'a'));
    expect(parse('contact.a()')).toMatchObject(contactAttribute(2, 'a'));
    expect(parse("contact['a']")).toMatchObject(contactAttribute(3, 'a'));
    expect(parse('contact?.a').nodes.attribute.isNullSafe).toBe(true);
    expect(parse('contact.a').nodes.attribute.isNullSafe).toBe(false);

    const list = parse('[1, 2]');
    expect(list).toMatchObject({ name: 'ArrayNode', type: 'Array' });
    expect(Object.values(list.nodes)).toMatchObject([
      constant(0),
      constant(1),
      constant(1),
      constant(2),
    ]);
    const hash = parse('{a: 1}');
    expect(hash).toMatchObject({ name: 'ArrayNode', type: 'Object' });
    expect(Object.values(hash.nodes)).toMatchObject([constant('a'), constant(1)]);

    const call = parse('upper(contact.x)');
    expect(call).toMatchObject({ name: 'FunctionNode', attributes: { name: 'upper' } });
    expect(Object.values(call.nodes.fnArguments.nodes)).toMatchObject([contactAttribute(1, 'x')]);

    expect(parse('not contact.x')).toMatchObject({
      name: 'UnaryNode',
      attributes: { operator: 'not' },
      nodes: { node: contactAttribute(1, 'x') },
    });
    expect(parse("contact.x matches '/a/'")).toMatchObject({
      name: 'BinaryNode',
      attributes: { operator: 'matches' },
      nodes: { left: contactAttribute(1, 'x'), right: constant('/a/') },
    });
    expect(parse('contact.a ? 1 : 2')).toMatchObject({
      name: 'ConditionalNode',
      nodes: { expr1: contactAttribute(1, 'a'), expr2: constant(1), expr3: constant(2) },
    });
    expect(parse('contact.x ?? 1')).toMatchObject({
      name: 'NullCoalesceNode',
      nodes: { expr1: contactAttribute(1, 'x'), expr2: constant(1) },
    });
    expect(parse('unknown ?? 1').nodes.expr1).toMatchObject({ name: 'NullCoalescedNameNode' });
  });

  it('refuses unknown names and functions, checked against the own keys of the map given, with a message and a cursor', () => {
    const failure = (expression: string): unknown => {
      try {
        parse(expression);
      } catch (error) {
        return error;
      }
      return 'parsed';
    };
    expect(failure('nope')).toMatchObject({ message: 'Variable "nope" is not valid', cursor: 1 });
    expect(failure('constructor(1)')).toMatchObject({
      message: 'The function "constructor" does not exist',
      cursor: expect.any(Number),
    });
    expect(failure('1 +')).toMatchObject({ message: expect.any(String), cursor: 4 });
  });
});

describe('csv-parser: the state common/csv/csv-records.ts reads', () => {
  /** Parses `text`, noting the parser's state when its own `_flush` is reached. */
  function parseCsv(
    text: string,
    options: { maxRowBytes?: number } = {},
  ): Promise<{
    rows: string[][];
    atFlush?: { lineNumber: number; quoted: boolean };
    error?: string;
    lineNumber: number;
  }> {
    return new Promise((resolve) => {
      const parser = csvParser({ headers: false, ...options });
      const state = (parser as unknown as { state: { lineNumber: number; quoted: boolean } }).state;
      const rows: string[][] = [];
      let atFlush: { lineNumber: number; quoted: boolean } | undefined;
      const flush = parser._flush?.bind(parser);
      parser._flush = (done) => {
        atFlush = { lineNumber: state.lineNumber, quoted: state.quoted };
        if (flush) {
          flush(done);
        } else {
          done();
        }
      };
      parser.on('data', (row: Record<string, string>) => rows.push(Object.values(row)));
      parser.on('error', (error: Error) =>
        resolve({ rows, error: error.message, lineNumber: state.lineNumber }),
      );
      parser.on('end', () => resolve({ rows, atFlush, lineNumber: state.lineNumber }));
      parser.end(text);
    });
  }

  it('calls an _flush set on the instance, with the quote still open and the records read before it counted', async () => {
    const open = await parseCsv('number\n+33612345678\n"open\n+33612345679\n');
    expect(open.atFlush).toEqual({ lineNumber: 2, quoted: true });
    const closed = await parseCsv('number\n"+3361\n2345678"\n');
    expect(closed.atFlush).toEqual({ lineNumber: 2, quoted: false });
  });

  it('refuses a row longer than maxRowBytes with its own message, having counted the records before it', async () => {
    const result = await parseCsv(`number\n"a\nb"\n${'x'.repeat(50)}\n3\n`, { maxRowBytes: 20 });
    expect(result.error).toBe('Row exceeds the maximum size');
    expect(result.lineNumber).toBe(2);
  });
});

describe('busboy: the events and messages multipart.ts reads', () => {
  const BOUNDARY = 'pinned-boundary';
  const field = (name: string, value: string, headers = '') =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n${headers}\r\n${value}\r\n`;
  const file = (name: string, value: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="a.txt"\r\n` +
    `Content-Type: text/plain\r\n\r\n${value}\r\n`;
  const END = `--${BOUNDARY}--\r\n`;

  /** What busboy reports for `body`, in order. */
  function events(body: string, limits: busboy.Limits = {}): Promise<unknown[][]> {
    return new Promise((resolve) => {
      const seen: unknown[][] = [];
      const parser = busboy({
        headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        defParamCharset: 'utf8',
        limits,
      });
      parser.on('field', (name, value: string | undefined, info) =>
        seen.push(['field', name, value, info.valueTruncated]),
      );
      parser.on('file', (name, stream, info) => {
        let size = 0;
        stream.on('data', (chunk: Buffer) => (size += chunk.length));
        stream.on('limit', () => seen.push(['file limit', name]));
        stream.on('error', (error) => seen.push(['file error', error.message]));
        stream.on('end', () => seen.push(['file', name, info.filename, size]));
      });
      parser.on('partsLimit', () => seen.push(['partsLimit']));
      parser.on('fieldsLimit', () => seen.push(['fieldsLimit']));
      parser.on('filesLimit', () => seen.push(['filesLimit']));
      parser.on('error', (error: Error) => {
        seen.push(['error', error.message]);
        resolve(seen);
      });
      parser.on('close', () => resolve(seen));
      parser.end(Buffer.from(body));
    });
  }

  it('signals the parts limit when it is reached, the fields and files limits when they are exceeded', async () => {
    const two = field('a', '1') + field('b', '2');
    expect(await events(two + END, { parts: 2 })).toContainEqual(['partsLimit']);
    expect(await events(two + END, { fields: 2 })).not.toContainEqual(['fieldsLimit']);
    expect(await events(two + field('c', '3') + END, { fields: 2 })).toContainEqual([
      'fieldsLimit',
    ]);
    expect(await events(file('f', '1') + END, { files: 1 })).not.toContainEqual(['filesLimit']);
    expect(await events(file('f', '1') + file('g', '2') + END, { files: 1 })).toContainEqual([
      'filesLimit',
    ]);
  });

  it('stops a file at fileSize with a limit event, passing none of the excess on', async () => {
    expect(await events(file('f', 'abcdefghij') + END, { fileSize: 4 })).toEqual([
      ['file limit', 'f'],
      ['file', 'f', 'a.txt', 4],
    ]);
  });

  it('marks a field cut at fieldSize, and gives no text for a charset it cannot decode', async () => {
    expect(await events(field('a', 'abcdefghij') + END, { fieldSize: 4 })).toEqual([
      ['field', 'a', 'abcd', true],
    ]);
    const unknownCharset = 'Content-Type: text/plain; charset=x-pinned-unknown\r\n';
    expect(await events(field('a', 'x', unknownCharset) + END)).toEqual([
      ['field', 'a', undefined, false],
    ]);
  });

  it('fails with the messages fromParserError translates', async () => {
    expect(await events(field('a', '1'))).toContainEqual(['error', 'Unexpected end of form']);
    expect(await events(file('f', 'abc'))).toContainEqual(['file error', 'Unexpected end of form']);
    expect(
      await events(`--${BOUNDARY}\r\nContent-Disposition form-data\r\n\r\nx\r\n${END}`),
    ).toContainEqual(['error', 'Malformed part header']);
    expect(() => busboy({ headers: { 'content-type': 'multipart/form-data' } })).toThrow();
  });
});

describe('smpp: the session and codecs the SMPP adapter uses', () => {
  let smsc: ReturnType<typeof createSmsc>;
  let port: number;
  let smscSession: Promise<Session>;
  const clients: Session[] = [];

  beforeEach(async () => {
    smscSession = new Promise((resolve) => {
      smsc = createSmsc((session) => {
        session.on('bind_transceiver', (pdu: PDU) => session.send(pdu.response()));
        session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()));
        session.on('error', () => undefined);
        resolve(session);
      });
    });
    await new Promise<void>((resolve) => smsc.listen(0, '127.0.0.1', resolve));
    port = (smsc.address() as AddressInfo).port;
  });
  afterEach(async () => {
    clients.splice(0).forEach((client) => client.destroy());
    (await Promise.race([smscSession, sleep(0).then(() => null)]))?.destroy();
    await new Promise((resolve) => smsc.close(resolve));
  });

  /** A session connected by name: only `lookup` can tell node:net where that name is. */
  async function connected(options: { auto_enquire_link_period?: number } = {}) {
    const looked: string[] = [];
    const lookup = ((hostname, lookupOptions, callback) => {
      looked.push(hostname);
      if ((lookupOptions as { all?: boolean }).all) {
        (callback as unknown as (error: null, addresses: unknown[]) => void)(null, [
          { address: '127.0.0.1', family: 4 },
        ]);
      } else {
        callback(null, '127.0.0.1', 4);
      }
    }) as LookupFunction;
    const client = connectSmpp({
      host: 'smsc.pinned.test',
      port,
      lookup,
      noDelay: true,
      ...options,
    });
    clients.push(client);
    client.on('error', () => undefined);
    await new Promise((resolve) => client.once('connect', resolve));
    return { client, looked, smsc: await smscSession };
  }

  it('encodes GSM 03.38 as ASCII, one septet per octet, and UCS-2 big-endian (smpp.codec.ts)', () => {
    expect(encodings.ASCII.match('Hé @€{}')).toBe(true);
    expect(encodings.ASCII.match('ê')).toBe(false);
    expect([...encodings.ASCII.encode('@A€')]).toEqual([0x00, 0x41, 0x1b, 0x65]);
    expect([...encodings.UCS2.encode('é€')]).toEqual([0x00, 0xe9, 0x20, 0xac]);
  });

  it('names command statuses by their SMPP values (smpp.codec.ts, smpp.link.ts)', () => {
    expect(errors).toMatchObject({
      ESME_ROK: 0x00,
      ESME_RSYSERR: 0x08,
      ESME_RINVPASWD: 0x0e,
      ESME_RINVSYSID: 0x0f,
      ESME_RMSGQFUL: 0x14,
      ESME_RINVSYSTYP: 0x53,
      ESME_RTHROTTLED: 0x58,
      ESME_RX_T_APPN: 0x64,
    });
  });

  it("hands its options to node:net's connect, and reports each PDU it writes and reads (smpp.bind.ts)", async () => {
    const { client, looked } = await connected({ auto_enquire_link_period: 20 });
    expect(looked).toEqual(['smsc.pinned.test']);
    expect(client.socket.remoteAddress).toBe('127.0.0.1');

    const sent: string[] = [];
    const read: string[] = [];
    client.on('send', (pdu: PDU) => sent.push(pdu.command));
    client.on('pdu', (pdu: PDU) => read.push(pdu.command));
    const response = await new Promise<PDU>((resolve) =>
      client.bind_transceiver({ system_id: 'pinned', password: 'secret' }, resolve),
    );
    expect(response).toMatchObject({ command: 'bind_transceiver_resp', command_status: 0 });
    while (!sent.includes('enquire_link') || !read.includes('enquire_link_resp')) {
      await sleep(10);
    }
    expect(sent).toContain('bind_transceiver');
    expect(read).toContain('bind_transceiver_resp');
  });

  it('sends Buffers as given with the data_coding given, and decodes what it reads into {message} by data_coding (smpp.codec.ts)', async () => {
    const { client, smsc } = await connected();
    const submitted = new Promise<PDU>((resolve) => smsc.once('submit_sm', resolve));
    const long = 'é'.repeat(100);
    client.submit_sm({
      destination_addr: '33612345678',
      data_coding: 0x18,
      short_message: encodings.UCS2.encode('€'),
      message_payload: encodings.UCS2.encode(long),
    });
    const submit = await submitted;
    expect(submit.data_coding).toBe(0x18);
    expect(submit.short_message).toEqual({ message: '€' });
    expect(submit.message_payload).toEqual({ message: long });

    const delivered: PDU[] = [];
    client.on('deliver_sm', (pdu: PDU) => delivered.push(pdu));
    smsc.deliver_sm({ data_coding: 0x00, short_message: encodings.ASCII.encode('Hé €') });
    smsc.deliver_sm({ data_coding: 0x08, message_payload: encodings.UCS2.encode('ok ✓') });
    smsc.deliver_sm({ data_coding: 0x04, short_message: Buffer.from([1, 2, 3]) });
    while (delivered.length < 3) {
      await sleep(10);
    }
    expect(delivered[0].short_message).toEqual({ message: 'Hé €' });
    expect(delivered[1].message_payload).toEqual({ message: 'ok ✓' });
    expect(delivered[2].short_message).toEqual({ message: Buffer.from([1, 2, 3]) });
    expect(delivered[0].response({ command_status: errors.ESME_RX_T_APPN })).toMatchObject({
      command: 'deliver_sm_resp',
      command_status: errors.ESME_RX_T_APPN,
      sequence_number: delivered[0].sequence_number,
    });
  });

  it('sends any request with toBuffer, numbering it first and matching its response to it (smpp.submit.ts)', async () => {
    const { client, smsc } = await connected();
    smsc.on('submit_sm', (pdu: PDU) => smsc.send(pdu.response({ message_id: 'id-1' })));
    const written: number[] = [];
    const request = {
      command: 'submit_sm',
      sequence_number: 0,
      isResponse: () => false,
      toBuffer() {
        written.push(this.sequence_number);
        return new PDU('submit_sm', {
          sequence_number: this.sequence_number,
          destination_addr: '33612345678',
          short_message: Buffer.from('hi'),
        }).toBuffer();
      },
    };
    const sent: string[] = [];
    client.on('send', (pdu: PDU) => sent.push(pdu.command));

    const response = await new Promise<PDU>((resolve) => {
      expect(client.send(request, resolve)).toBe(true);
    });

    expect(written).toEqual([request.sequence_number]);
    expect(request.sequence_number).toBeGreaterThan(0);
    expect(response).toMatchObject({
      command: 'submit_sm_resp',
      sequence_number: request.sequence_number,
      message_id: 'id-1',
    });
    expect(sent).toEqual(['submit_sm']);
  });

  it('reports an unknown command, whose response is a generic_nack (smpp.bind.ts)', async () => {
    const { client, smsc } = await connected();
    const unknown = new Promise<PDU>((resolve) => client.once('unknown', resolve));
    const header = Buffer.alloc(16);
    header.writeUInt32BE(16, 0);
    header.writeUInt32BE(0x000000aa, 4);
    header.writeUInt32BE(7, 12);
    smsc.socket.write(header);
    const pdu = await unknown;
    expect(pdu.command).toBe('unknown');
    expect(pdu.response()).toMatchObject({
      command: 'generic_nack',
      sequence_number: 7,
      command_status: errors.ESME_RINVCMDID,
    });
  });

  it('reports an unreadable PDU as an error without closing, and reads nothing after it (smpp.bind.ts)', async () => {
    const { client, smsc } = await connected();
    const failed = new Promise<Error>((resolve) => client.once('error', resolve));
    const tooLong = Buffer.alloc(4);
    tooLong.writeUInt32BE(0xffffffff, 0);
    smsc.socket.write(tooLong);
    expect((await failed).message).toMatch(/PDU length was too large/);
    const read: string[] = [];
    client.on('pdu', (pdu: PDU) => read.push(pdu.command));
    const written = new Promise((resolve) => smsc.once('send', resolve));
    smsc.enquire_link();
    await written;
    await sleep(100);
    expect(client.socket.destroyed).toBe(false);
    expect(read).toEqual([]);
  });

  it('sends nothing, returning false, once its connection is no longer writable (smpp.bind.ts)', async () => {
    const { client } = await connected();
    expect(client.enquire_link()).toBe(true);
    client.destroy();
    expect(client.enquire_link()).toBe(false);
  });
});

describe('Node.js http: what malformed-requests.ts uses beyond the documented API', () => {
  let server: HttpServer;
  let port: number;
  let responses: ServerResponse[];

  beforeEach(async () => {
    responses = [];
    server = createHttpServer((request, response) => {
      responses.push(response);
      if (request.url === '/slow') {
        return;
      }
      response.end(`host ${request.headers.host ?? 'none'}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** Writes `request` on a new connection and collects what comes back until it closes. */
  function exchange(request: string): { socket: Socket; answer: Promise<string> } {
    const socket = connectTcp(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.write(request);
    return { socket, answer: new Promise((resolve) => socket.on('close', () => resolve(text))) };
  }

  it('lets requireHostHeader be turned off on a server already created', async () => {
    (server as HttpServer & { requireHostHeader: boolean }).requireHostHeader = false;
    const { answer } = exchange('GET / HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(await answer).toMatch(/^HTTP\/1\.1 200 [\s\S]*host none$/);
  });

  it("keeps the response being written on the socket's _httpMessage", async () => {
    const { socket } = exchange('GET /slow HTTP/1.1\r\nHost: pinned\r\n\r\n');
    while (responses.length === 0) {
      await sleep(10);
    }
    const serverSocket = responses[0].socket as Socket & { _httpMessage?: ServerResponse | null };
    expect(serverSocket._httpMessage).toBe(responses[0]);
    expect(serverSocket._httpMessage?.req.complete).toBe(true);
    responses[0].end();
    socket.destroy();
  });
});
