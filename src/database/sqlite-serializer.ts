import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, QueryRunner } from 'typeorm';

/**
 * TypeORM's better-sqlite3 driver hands every caller the same query runner, so without this a
 * transaction of one caller (the inline dispatch worker) and the queries of another (an API
 * request) interleave on one connection: the request's writes would join the worker's
 * transaction, its own transaction would become a savepoint of it, and a rollback of either
 * would undo the other's work. This gives the connection to one transaction at a time: while a
 * transaction is open, queries from outside it wait for its end. Transactions are short (the
 * dispatch never calls a provider inside one), so the wait is too.
 */
export function serializeTransactions(dataSource: DataSource): void {
  const runner = dataSource.createQueryRunner();
  const owner = new AsyncLocalStorage<object>();
  const lock = new Lock();
  let holder: object | null = null;
  const ended = new WeakSet<object>();
  const holds = () => holder !== null && owner.getStore() === holder;

  // Each transaction runs in a context of its own, so that its queries, and only they, are
  // recognised as its own.
  const transaction = dataSource.manager.transaction.bind(dataSource.manager);
  dataSource.manager.transaction = ((...args: Parameters<typeof transaction>) =>
    holds()
      ? transaction(...args)
      : owner.run({}, () => transaction(...args))) as typeof transaction;

  const query: (...args: Parameters<QueryRunner['query']>) => Promise<unknown> =
    runner.query.bind(runner);
  const startTransaction = runner.startTransaction.bind(runner);
  const commitTransaction = runner.commitTransaction.bind(runner);
  const rollbackTransaction = runner.rollbackTransaction.bind(runner);

  runner.query = (async (...args: Parameters<QueryRunner['query']>) => {
    if (holds()) {
      return query(...args);
    }
    await lock.acquire();
    try {
      return await query(...args);
    } finally {
      lock.release();
    }
  }) as QueryRunner['query'];

  runner.startTransaction = async (isolationLevel) => {
    if (holds()) {
      return startTransaction(isolationLevel);
    }
    let token = owner.getStore();
    if (!token || ended.has(token)) {
      // A transaction TypeORM starts itself (a `save` outside any): its caller's context
      // becomes the transaction's.
      token = {};
      owner.enterWith(token);
    }
    await lock.acquire();
    holder = token;
    try {
      await startTransaction(isolationLevel);
    } catch (error) {
      ended.add(token);
      holder = null;
      lock.release();
      throw error;
    }
  };

  const end = async (finish: () => Promise<void>) => {
    try {
      await finish();
    } finally {
      if (!runner.isTransactionActive && holder !== null && holds()) {
        ended.add(holder);
        holder = null;
        lock.release();
      }
    }
  };
  runner.commitTransaction = () => end(commitTransaction);
  runner.rollbackTransaction = () => end(rollbackTransaction);
}

/** A first-come, first-served async lock. */
class Lock {
  private locked = false;
  private readonly waiting: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.locked) {
      this.locked = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.locked = false;
    }
  }
}
