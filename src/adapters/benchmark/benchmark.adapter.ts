import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Adapter, AdapterCapabilities, PhoneStatus, SendResult } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';

/** Accepts every message at once: the dispatch's own speed, without a provider. */
@Injectable()
export class BenchmarkAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'benchmark',
    alias: 'adapters\\BenchmarkAdapter',
    callbackId: 'benchmark_adapter',
    name: 'Benchmark',
    description: 'Accepts every message at once, for measurements.',
    fields: [],
    hideData: false,
  };

  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

  test(): Promise<string | null> {
    return Promise.resolve(null);
  }

  checkStatus(): Promise<Exclude<PhoneStatus, 'disabled'>> {
    return Promise.resolve('available');
  }

  send(): Promise<SendResult> {
    return Promise.resolve({ outcome: 'sent', uid: randomBytes(8).toString('hex') });
  }
}
