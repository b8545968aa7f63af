import { Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { OutboundPolicy, Resolver, systemResolver } from './outbound-policy';

/**
 * How host names are resolved before the policy judges their addresses: the system's resolver,
 * which tests replace to make a name resolve where they need without touching the machine's.
 */
export const OUTBOUND_RESOLVER = Symbol('OUTBOUND_RESOLVER');

/** The outbound policy, configured by OUTBOUND_BLOCK_PRIVATE and OUTBOUND_ALLOW. */
@Module({
  providers: [
    { provide: OUTBOUND_RESOLVER, useValue: systemResolver },
    {
      provide: OutboundPolicy,
      inject: [AppConfig, OUTBOUND_RESOLVER],
      useFactory: (config: AppConfig, resolver: Resolver) =>
        new OutboundPolicy(config.outbound, resolver),
    },
  ],
  exports: [OutboundPolicy],
})
export class OutboundModule implements OnApplicationShutdown {
  constructor(private readonly policy: OutboundPolicy) {}

  async onApplicationShutdown(): Promise<void> {
    await this.policy.close();
  }
}
