import { Module, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { OutboundPolicy } from './outbound-policy';

/** The outbound policy, configured by OUTBOUND_BLOCK_PRIVATE and OUTBOUND_ALLOW. */
@Module({
  providers: [
    {
      provide: OutboundPolicy,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new OutboundPolicy(config.outbound),
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
