import { resolve } from 'node:path';
import { ConfigurationError } from './configuration-error';

/*
 * Settings that belong to one provider (where its API is, a folder its tool reads) are declared
 * by that provider, in its adapter descriptor, rather than listed here: adding a provider then
 * touches no configuration code. The configuration keeps the variables as they were given and
 * reads each setting on demand; the adapters module checks every declared setting at boot.
 */

/** The base URL of a provider's API, which tests and other regions point elsewhere. */
export interface ProviderUrlSetting {
  kind: 'url';
  /** The environment variable. */
  variable: string;
  default: string;
}

/** A folder on the server; unset or empty, the provider has none. */
export interface ProviderFolderSetting {
  kind: 'folder';
  /** The environment variable. */
  variable: string;
}

export type ProviderSetting = ProviderUrlSetting | ProviderFolderSetting;

const HTTP_URL = /^https?:\/\/[^\s]+$/;

/** The providers' own settings, read from the variables given to the configuration. */
export class ProviderSettings {
  constructor(private readonly given: Readonly<Record<string, string | undefined>>) {}

  /** The setting's URL without its trailing slashes; throws when the variable is invalid. */
  url(setting: ProviderUrlSetting): string {
    const problem = this.problem(setting);
    if (problem) {
      throw new ConfigurationError(`Invalid environment variables: ${problem}`);
    }
    return (this.value(setting) ?? setting.default).replace(/\/+$/, '');
  }

  /** The setting's folder, resolved; null when it is unset. */
  folder(setting: ProviderFolderSetting): string | null {
    const value = this.value(setting);
    return value === undefined ? null : resolve(value);
  }

  /**
   * What is wrong with the variables of `settings`, each once, worded as the other invalid
   * variables are (`NAME="value": why`); empty when all are valid.
   */
  problems(settings: Iterable<ProviderSetting>): string[] {
    const byVariable = new Map([...settings].map((setting) => [setting.variable, setting]));
    return [...byVariable.values()].flatMap((setting) => this.problem(setting) ?? []);
  }

  private problem(setting: ProviderSetting): string | null {
    const value = this.value(setting);
    if (setting.kind !== 'url' || value === undefined || HTTP_URL.test(value)) {
      return null;
    }
    return `${setting.variable}=${JSON.stringify(value)}: ${setting.variable} must be an absolute http(s) URL`;
  }

  /** An empty variable counts as unset, as for every other variable. */
  private value(setting: ProviderSetting): string | undefined {
    const value = this.given[setting.variable];
    return value === undefined || value === '' ? undefined : value;
  }
}
