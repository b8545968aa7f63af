import { isConsoleRoute } from './console-routes';

describe('isConsoleRoute', () => {
  it.each([
    '/',
    '/dashboard',
    '/messages/sent/42',
    '/index.html',
    '/apix',
    '/callbacks',
    '/healthz',
  ])('gives %s to the console', (path) => {
    expect(isConsoleRoute(path, '')).toBe(true);
  });

  it.each([
    '/api',
    '/api/',
    '/API/nope/',
    '//api/nope/',
    '/callback/status/test/',
    '/media/1/x.png',
    '/health',
    '/health/ready',
    '/metrics',
    '/%zz',
  ])('leaves %s to its own route', (path) => {
    expect(isConsoleRoute(path, '')).toBe(false);
  });

  it('serves only under BASE_PATH, and leaves the API under it alone', () => {
    expect(isConsoleRoute('/raspisms', '/raspisms')).toBe(true);
    expect(isConsoleRoute('/RASPISMS/send', '/raspisms')).toBe(true);
    expect(isConsoleRoute('/', '/raspisms')).toBe(false);
    expect(isConsoleRoute('/raspismsx', '/raspisms')).toBe(false);
    expect(isConsoleRoute('/raspisms/api/nope/', '/raspisms')).toBe(false);
    expect(isConsoleRoute('/raspisms/media/1/x.png', '/raspisms')).toBe(false);
    expect(isConsoleRoute('/raspisms/health', '/raspisms')).toBe(false);
    expect(isConsoleRoute('/raspisms/metrics', '/raspisms')).toBe(false);
  });
});
