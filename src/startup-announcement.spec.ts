import { servedUrls } from './startup-announcement';

describe('servedUrls', () => {
  const at = (host: string, publicUrl: string | null = null, basePath = '') =>
    servedUrls({ host, publicUrl, basePath }, 3000);

  it.each(['0.0.0.0', '::', ''])(
    'names localhost when listening on every interface (%j)',
    (host) => {
      expect(at(host)).toEqual({
        console: 'http://localhost:3000/',
        api: 'http://localhost:3000/api/',
        openapi: 'http://localhost:3000/api/docs',
        openapi_json: 'http://localhost:3000/api/docs-json',
      });
    },
  );

  it('names the host it listens on, an IPv6 address in brackets', () => {
    expect(at('127.0.0.1').api).toBe('http://127.0.0.1:3000/api/');
    expect(at('sms.lan').api).toBe('http://sms.lan:3000/api/');
    expect(at('::1').api).toBe('http://[::1]:3000/api/');
  });

  it('puts everything under BASE_PATH', () => {
    expect(at('0.0.0.0', null, '/raspisms')).toEqual({
      console: 'http://localhost:3000/raspisms/',
      api: 'http://localhost:3000/raspisms/api/',
      openapi: 'http://localhost:3000/raspisms/api/docs',
      openapi_json: 'http://localhost:3000/raspisms/api/docs-json',
    });
  });

  it('names PUBLIC_URL rather than the address it listens on', () => {
    expect(at('0.0.0.0', 'https://sms.example.com', '/raspisms')).toEqual({
      console: 'https://sms.example.com/raspisms/',
      api: 'https://sms.example.com/raspisms/api/',
      openapi: 'https://sms.example.com/raspisms/api/docs',
      openapi_json: 'https://sms.example.com/raspisms/api/docs-json',
    });
  });
});
