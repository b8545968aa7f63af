import { REDACTED, Redactor } from './redaction';

const SECRET = 's3cr3t-value';
const redactor = new Redactor(['api_key', 'secret', 'password', 'pin']);

describe('Redactor.isSecretName', () => {
  it.each([
    'api_key',
    'API_KEY',
    'api_key[]',
    'api_key[0]',
    'x[api_key]',
    '__proto__[api_key]',
    'adapter_data[password]',
    'adapter_data%5Bpassword%5D',
    'api%5Fkey',
    'api%255Fkey',
    'webhook[secret]',
    'pin',
    'x-api-key',
    'Authorization',
    'cookie',
  ])('counts %s', (name) => {
    expect(redactor.isSecretName(name)).toBe(true);
  });

  it.each(['my_api_key', 'api_keys', 'ping', 'pinned', 'adapter_data', 'adapter_data[username]'])(
    'does not count %s',
    (name) => {
      expect(redactor.isSecretName(name)).toBe(false);
    },
  );
});

describe('Redactor.text', () => {
  it('masks parameters in a sentence, a query and a form body', () => {
    expect(redactor.text(`Kannel said password=${SECRET} is wrong`)).toBe(
      `Kannel said password=${REDACTED} is wrong`,
    );
    expect(redactor.text(`/x?password=${SECRET}&pin=1234&from=me`)).toBe(
      `/x?password=${REDACTED}&pin=${REDACTED}&from=me`,
    );
    expect(redactor.text(`username=u&password=${SECRET}`)).toBe(`username=u&password=${REDACTED}`);
  });

  it('masks a query after a path that holds an equals sign', () => {
    expect(redactor.text(`/api/a;b=c?api_key=${SECRET}`)).toBe(`/api/a;b=c?api_key=${REDACTED}`);
  });

  it('masks a parameter whose value, percent-encoded, is a URL with user information', () => {
    expect(
      redactor.text(`/api/phone?adapter_data%5Bdlr_url%5D=http%3A%2F%2F${SECRET}%40h.test%2Fdlr`),
    ).toBe(`/api/phone?adapter_data%5Bdlr_url%5D=${REDACTED}`);
  });

  it('masks the user information of a URL, a token standing for a user name too', () => {
    expect(redactor.text(`reach https://${SECRET}@h.test/p`)).toBe(
      `reach https://${REDACTED}@h.test/p`,
    );
  });

  it('masks the password of credentials written in a URL', () => {
    expect(redactor.text(`Failed to parse URL from https://user:${SECRET}@h.test:8080/p`)).toBe(
      `Failed to parse URL from https://${REDACTED}@h.test:8080/p`,
    );
  });

  it('masks JSON members with a secret name, whatever their scalar value', () => {
    expect(
      redactor.text(`body {"password": "${SECRET}", "pin": 1234, "from": "x", "secret": null}`),
    ).toBe(
      `body {"password": "${REDACTED}", "pin": "${REDACTED}", "from": "x", "secret": "${REDACTED}"}`,
    );
  });

  it('leaves text without secrets as it is', () => {
    const text = 'Phone 3 is now available: ping=12 https://h.test/a?b=c {"from":"x"}';

    expect(redactor.text(text)).toBe(text);
  });
});

describe('Redactor.value', () => {
  it('masks members with a secret name at any depth, in arrays too, without touching the input', () => {
    const input = {
      a: { b: { c: { d: { e: { f: { password: SECRET, keep: 1 } } } } } },
      list: [{ 'x-api-key': SECRET }, `?api_key=${SECRET}`],
      secret: { nested: SECRET },
    };

    const output = redactor.value(input);

    expect(JSON.stringify(output)).not.toContain(SECRET);
    expect(output).toEqual({
      a: { b: { c: { d: { e: { f: { password: REDACTED, keep: 1 } } } } } },
      list: [{ 'x-api-key': REDACTED }, `?api_key=${REDACTED}`],
      secret: REDACTED,
    });
    expect(input.a.b.c.d.e.f.password).toBe(SECRET);
  });

  it('masks what lies past the limits of its walk instead of letting it through', () => {
    let deep: unknown = { password: SECRET };
    for (let level = 0; level < 100; level++) {
      deep = { level: deep };
    }
    const wide = Array.from({ length: 30_000 }, () => `password=${SECRET}`);

    expect(JSON.stringify(redactor.value(deep))).not.toContain(SECRET);
    expect(JSON.stringify(redactor.value(wide))).not.toContain(SECRET);
  });
});

describe('Redactor.line', () => {
  it('gives back the very line when it mentions no secret, or only masked ones', () => {
    const lines = [
      '{"level":30,"msg":"request completed","req":{"url":"/api/list/phone/?page=1"}}\n',
      `{"req":{"url":"/api/list/phone/?api_key=${REDACTED}&x[api_key]=${REDACTED}"}}\n`,
      `{"req":{"url":"/a/?api%5Fkey=${REDACTED}"},"headers":{"x-api-key":"${REDACTED}"}}\n`,
      '{"msg":"mapping ping spinner"}\n',
    ];

    for (const line of lines) {
      expect(redactor.line(line)).toBe(line);
    }
  });

  it('masks the secrets of a JSON line, keeping its order and its end of line', () => {
    const line = `{"level":40,"msg":"reach http://h/s?password=${SECRET}","err":{"stack":"at https://u:${SECRET}@h/"},"o":{"pin":"1234"}}\n`;

    expect(redactor.line(line)).toBe(
      `{"level":40,"msg":"reach http://h/s?password=${REDACTED}","err":{"stack":"at https://${REDACTED}@h/"},"o":{"pin":"${REDACTED}"}}\n`,
    );
  });

  it.each([
    `{"url":"/a/?adapter_data%5Bpassword%5D=${SECRET}"}\n`,
    `{"url":"/a/?api%5Fkey=${SECRET}"}\n`,
    `{"url":"/a/?x[API_KEY]=${SECRET}"}\n`,
    `{"o":{"adapter_data[pin]":"${SECRET}"}}\n`,
    `{"o":{"pin":{"nested":"${SECRET}"}}}\n`,
    `{"msg":"a password=${SECRET} here"}\n`,
  ])('masks a secret under an encoded, bracketed or nested name: %s', (line) => {
    expect(redactor.line(line)).not.toContain(SECRET);
  });

  it('masks a line that is not JSON as text', () => {
    expect(redactor.line(`not json password=${SECRET}`)).toBe(`not json password=${REDACTED}`);
  });
});
