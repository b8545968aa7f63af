import { resolve } from 'node:path';
import { ProviderFolderSetting, ProviderSettings, ProviderUrlSetting } from './provider-settings';

const API_URL: ProviderUrlSetting = {
  kind: 'url',
  variable: 'ACME_API_URL',
  default: 'https://api.acme.example/v1',
};
const CONFIG_DIR: ProviderFolderSetting = { kind: 'folder', variable: 'ACME_CONFIG_DIR' };

describe('ProviderSettings', () => {
  it("gives a URL setting its provider's default when the variable is unset or empty", () => {
    expect(new ProviderSettings({}).url(API_URL)).toBe('https://api.acme.example/v1');
    expect(new ProviderSettings({ ACME_API_URL: '' }).url(API_URL)).toBe(
      'https://api.acme.example/v1',
    );
  });

  it('reads a URL setting without its trailing slashes', () => {
    const settings = new ProviderSettings({ ACME_API_URL: 'http://127.0.0.1:8082/1.0//' });

    expect(settings.url(API_URL)).toBe('http://127.0.0.1:8082/1.0');
  });

  it.each(['api.acme.example', 'ftp://api.acme.example/v1', 'http://a b'])(
    'refuses %p as a URL setting, naming the variable and its value',
    (value) => {
      const settings = new ProviderSettings({ ACME_API_URL: value });

      expect(settings.problems([API_URL])).toEqual([
        `ACME_API_URL=${JSON.stringify(value)}: ACME_API_URL must be an absolute http(s) URL`,
      ]);
      expect(() => settings.url(API_URL)).toThrow(
        `Invalid environment variables: ACME_API_URL=${JSON.stringify(value)}: `,
      );
    },
  );

  it('leaves a folder setting null unless its variable names one, resolved', () => {
    expect(new ProviderSettings({}).folder(CONFIG_DIR)).toBeNull();
    expect(new ProviderSettings({ ACME_CONFIG_DIR: '' }).folder(CONFIG_DIR)).toBeNull();
    expect(new ProviderSettings({ ACME_CONFIG_DIR: 'etc/acme' }).folder(CONFIG_DIR)).toBe(
      resolve('etc/acme'),
    );
  });

  it('names each invalid variable once, however many adapters declare it', () => {
    const settings = new ProviderSettings({
      ACME_API_URL: 'nowhere',
      OTHER_API_URL: 'elsewhere',
      ACME_CONFIG_DIR: 'anything',
    });
    const other: ProviderUrlSetting = { ...API_URL, variable: 'OTHER_API_URL' };

    expect(settings.problems([API_URL, CONFIG_DIR, other, API_URL])).toEqual([
      'ACME_API_URL="nowhere": ACME_API_URL must be an absolute http(s) URL',
      'OTHER_API_URL="elsewhere": OTHER_API_URL must be an absolute http(s) URL',
    ]);
    expect(new ProviderSettings({}).problems([API_URL, CONFIG_DIR, other])).toEqual([]);
  });
});
