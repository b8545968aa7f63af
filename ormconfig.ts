import 'reflect-metadata';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource } from 'typeorm';
import { secretCipher } from './src/common/secrets/secrets-key';
import { loadConfig } from './src/config/configuration';
import { dataSourceOptions } from './src/database/data-source';
import { bindSecretCipher } from './src/database/secrets-key.check';

/*
 * The data source of the TypeORM CLI (`npm run migration:show`, `migration:run`,
 * `migration:revert`): the server's own options, from the same validated configuration (`.env`
 * under the environment), with the key of the stored provider credentials, which the migration
 * that encrypts them uses in both directions. The server migrates by itself at boot, holding a
 * lock on MySQL so that replicas starting together migrate once; the CLI is for an operator.
 */
const config = loadConfig();
if (config.database.type === 'sqlite') {
  mkdirSync(dirname(config.database.path), { recursive: true });
}
const dataSource = new DataSource(dataSourceOptions(config.database));
bindSecretCipher(dataSource, secretCipher(config));

export default dataSource;
