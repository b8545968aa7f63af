import { Global, Module, Type } from '@nestjs/common';
import { OutboundModule } from '../common/net/outbound.module';
import { ADAPTER_SECRET_NAMES } from '../common/logging/logging.module';
import { AppConfig } from '../config/configuration';
import { ConfigurationError } from '../config/configuration-error';
import { Adapter } from './adapter';
import { AdapterDataCipher } from './adapter-data.cipher';
import { ADAPTER_LIST, AdapterRegistry } from './adapter.registry';
import { BenchmarkAdapter } from './benchmark/benchmark.adapter';
import { GammuAdapter } from './gammu/gammu.adapter';
import { KannelAdapter } from './kannel/kannel.adapter';
import { OctopushShortcodeAdapter } from './octopush/octopush-shortcode.adapter';
import { OctopushVirtualNumberAdapter } from './octopush/octopush-virtual-number.adapter';
import { OdysseyMessagingAdapter } from './odyssey/odyssey.adapter';
import { OvhShortcodeAdapter } from './ovh/ovh-shortcode.adapter';
import { OvhVirtualNumberAdapter } from './ovh/ovh-virtual-number.adapter';
import { SmppAdapter } from './smpp/smpp.adapter';
import { SmsGatewayAndroidAdapter } from './sms-gateway-android/sms-gateway-android.adapter';
import { TestAdapter } from './test/test.adapter';
import { TwilioAdapter } from './twilio/twilio.adapter';
import { VonageAdapter } from './vonage/vonage.adapter';
import { TelnyxAdapter } from './telnyx/telnyx.adapter';

/** Every adapter: adding a provider is its folder and one line here. */
export const ADAPTERS: Array<Type<Adapter>> = [
  TestAdapter,
  BenchmarkAdapter,
  TwilioAdapter,
  KannelAdapter,
  OvhVirtualNumberAdapter,
  OvhShortcodeAdapter,
  GammuAdapter,
  SmppAdapter,
  SmsGatewayAndroidAdapter,
  OctopushShortcodeAdapter,
  OctopushVirtualNumberAdapter,
  OdysseyMessagingAdapter,
  VonageAdapter,
  TelnyxAdapter,
];

@Global()
@Module({
  imports: [OutboundModule],
  providers: [
    ...ADAPTERS,
    {
      provide: ADAPTER_LIST,
      inject: [AppConfig, ...ADAPTERS],
      useFactory: (config: AppConfig, ...adapters: Adapter[]) => {
        checkSettings(config, adapters);
        return adapters;
      },
    },
    AdapterRegistry,
    AdapterDataCipher,
    {
      provide: ADAPTER_SECRET_NAMES,
      inject: [AdapterRegistry],
      useFactory: (registry: AdapterRegistry) => registry.secretFieldNames(),
    },
  ],
  exports: [AdapterRegistry, AdapterDataCipher, ADAPTER_SECRET_NAMES],
})
export class AdaptersModule {}

/**
 * Stops the boot, naming every invalid variable, when a setting some adapter declares is
 * invalid: the configuration checked the others, but knows no provider.
 */
function checkSettings(config: AppConfig, adapters: readonly Adapter[]): void {
  const problems = config.providers.settings.problems(
    adapters.flatMap((adapter) => adapter.descriptor.settings ?? []),
  );
  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid environment variables: ${problems.join('; ')}`);
  }
}
