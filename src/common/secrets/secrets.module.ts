import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { SecretCipher } from './secret-cipher';
import { secretCipher } from './secrets-key';

/** The cipher of stored secrets, with the key of SECRETS_KEY or DATA_DIR/secrets.key. */
@Global()
@Module({
  providers: [
    {
      provide: SecretCipher,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => secretCipher(config),
    },
  ],
  exports: [SecretCipher],
})
export class SecretsModule {}
