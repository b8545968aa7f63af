import { createServer, Server } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ApiError, httpStatusOf } from '../errors/api-error';
import { ParamBudget, paramsFromPairs } from '../params/query-string';
import { MultipartLimits, parseMultipart } from './multipart';
import { ApiRequest } from './request';

const MAX_PARAMS = 50;

const LIMITS: MultipartLimits = {
  fieldBytes: 1000,
  fileBytes: 100,
  largeFileBytes: 300,
  largeFileFields: new Set(['numbers_csv']),
  files: 2,
};

/** A bare HTTP server that parses each body with parseMultipart and answers what it read. */
function serverFor(folder: string): Server {
  return createServer((req, res) => {
    const apiRequest = req as unknown as ApiRequest;
    parseMultipart(apiRequest, folder, LIMITS, new ParamBudget(MAX_PARAMS)).then(
      (fields) => {
        const files = (apiRequest.files ?? []).map((file) => ({
          ...file,
          content: readFileSync(file.path, 'utf8'),
        }));
        res.end(JSON.stringify({ body: paramsFromPairs(fields), files }));
      },
      (error: unknown) => {
        res.statusCode = error instanceof ApiError ? httpStatusOf(error) : 500;
        res.end(JSON.stringify({ message: (error as Error).message }));
      },
    );
  });
}

describe('parseMultipart', () => {
  let folder: string;
  let server: Server;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-multipart-'));
    server = serverFor(folder);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => {
    server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('reads fields with the bracket syntax of urlencoded bodies', async () => {
    const response = await request(server)
      .post('/')
      .field('numbers[0][number]', '+33612345678')
      .field('numbers[0][data]', '{"firstname":"John"}')
      .field('contacts[]', '3')
      .field('contacts[]', '4')
      .field('text', 'é & = ?');

    expect(JSON.parse(response.text).body).toEqual({
      numbers: [{ number: '+33612345678', data: '{"firstname":"John"}' }],
      contacts: ['3', '4'],
      text: 'é & = ?',
    });
  });

  it('stores files under random names in the folder, never under the client’s name', async () => {
    const response = await request(server)
      .post('/')
      .attach('medias[]', Buffer.from('png bytes'), '../../etc/passwd.png');

    const [file] = JSON.parse(response.text).files;
    expect(file.fieldname).toBe('medias[]');
    expect(file.originalname).toMatch(/passwd\.png$/);
    expect(file.path).toMatch(new RegExp(`^${folder}/[0-9a-f]{32}\\.png$`));
    expect(file.content).toBe('png bytes');
    expect(file.size).toBe(9);
  });

  it('allows a numbers_csv up to the large-file limit', async () => {
    const response = await request(server)
      .post('/')
      .attach('numbers_csv', Buffer.from('x'.repeat(250)), 'numbers.csv');

    expect(response.status).toBe(200);
    expect(JSON.parse(response.text).files[0].size).toBe(250);
  });

  it.each([
    ['medias[]', 101, 'medias : the file is larger than 100 bytes.'],
    ['numbers_csv', 301, 'numbers_csv : the file is larger than 300 bytes.'],
  ])('refuses a %s file of %i bytes while reading it', async (field, size, detail) => {
    const response = await request(server)
      .post('/')
      .attach(field, Buffer.from('x'.repeat(size)), 'file.bin');

    expect(response.status).toBe(413);
    expect(JSON.parse(response.text).message).toContain(detail);
  });

  it('refuses more files than allowed', async () => {
    const response = await request(server)
      .post('/')
      .attach('medias[]', Buffer.from('a'), 'a.png')
      .attach('medias[]', Buffer.from('b'), 'b.png')
      .attach('medias[]', Buffer.from('c'), 'c.png');

    expect(response.status).toBe(413);
    expect(JSON.parse(response.text).message).toContain('at most 2 files');
  });

  it('refuses fields whose total size is over the budget though each is small', async () => {
    let form = request(server).post('/');
    for (let index = 0; index < 20; index += 1) {
      form = form.field(`numbers[${index}]`, 'x'.repeat(60));
    }

    expect((await form).status).toBe(413);
  });

  it('leaves the files it wrote listed on the request for clean-up, also on failure', async () => {
    const seen: string[] = [];
    const probe = createServer((req, res) => {
      const apiRequest = req as unknown as ApiRequest;
      parseMultipart(apiRequest, folder, LIMITS, new ParamBudget(MAX_PARAMS)).catch(() => {
        seen.push(...(apiRequest.files ?? []).map((file) => file.path));
        res.statusCode = 413;
        res.end();
      });
    });

    await request(probe)
      .post('/')
      .attach('medias[]', Buffer.from('ok'), 'a.png')
      .attach('medias[]', Buffer.from('x'.repeat(200)), 'b.png');
    probe.close();

    expect(seen).toHaveLength(2);
    expect(existsSync(seen[0])).toBe(true);
  });

  /** Sends `body` as a multipart body with boundary X on a raw socket; resolves to the answer. */
  const raw = (body: string, contentLength = Buffer.byteLength(body)) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      // Written, not ended: a half-closed socket may lose the answer, which comes later.
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(
          `POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
            `Content-Type: multipart/form-data; boundary=X\r\nContent-Length: ${contentLength}\r\n\r\n` +
            body,
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString();
        const [head, ...rest] = text.split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), body: rest.join('') });
      });
    });
  const NO_NAME = 'the multipart body is malformed: a part has no field name';

  it.each([
    ['without name', 'form-data'],
    ['with an empty name', 'form-data; name=""'],
    ['with only an RFC 2231 name*', "form-data; name*=utf-8''text"],
  ])('refuses a field part %s with 400', async (_case, disposition) => {
    const answer = await raw(`--X\r\nContent-Disposition: ${disposition}\r\n\r\nv\r\n--X--\r\n`);

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toContain(NO_NAME);
  });

  it('refuses a file part without a name with 400', async () => {
    const answer = await raw(
      '--X\r\nContent-Disposition: form-data; filename="n.csv"\r\n\r\nnumber\n\r\n--X--\r\n',
    );

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toContain(NO_NAME);
  });

  it.each([
    [
      'inside a file',
      '--X\r\nContent-Disposition: form-data; name="numbers_csv"; filename="n.csv"\r\n\r\nnumber\n',
    ],
    ['inside a field', '--X\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello'],
    ['inside the headers of a part', '--X\r\nContent-Disposition: form-da'],
  ])('refuses a body that ends %s with 400', async (_case, body) => {
    const answer = await raw(body);

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toMatch(
      /^You have specified an invalid parameter : the multipart body is malformed: /,
    );
  });

  it('refuses a field in a charset it cannot decode with 400, naming the field', async () => {
    const answer = await raw(
      '--X\r\nContent-Disposition: form-data; name="text"\r\n' +
        'Content-Type: text/plain; charset=nope\r\n\r\nv\r\n--X--\r\n',
    );

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toContain(
      'the multipart body is malformed: the charset of the field text is not supported; send UTF-8.',
    );
  });

  it('refuses part headers over 16 KiB with 400', async () => {
    const answer = await raw(
      `--X\r\nContent-Disposition: form-data; name="text"\r\nX-Pad: ${'a'.repeat(17 * 1024)}\r\n\r\nv\r\n--X--\r\n`,
    );

    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).message).toContain('the headers of a part are not valid');
  });

  it('reads as many fields as the parameter budget allows, and refuses one more with 413', async () => {
    const fields = (count: number) =>
      Array.from(
        { length: count },
        (_, i) => `--X\r\nContent-Disposition: form-data; name="a[]"\r\n\r\n${i}\r\n`,
      ).join('') + '--X--\r\n';

    const full = await raw(fields(MAX_PARAMS));
    const over = await raw(fields(MAX_PARAMS + 1));

    expect(full.status).toBe(200);
    expect(JSON.parse(full.body).body.a).toHaveLength(MAX_PARAMS);
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body).message).toContain(
      `the request has more than ${MAX_PARAMS} parameters (MAX_PARAMS).`,
    );
  });

  it('counts parts that are neither fields nor files against the budget too', async () => {
    const junk =
      '--X\r\nX-Nothing: here\r\n\r\nv\r\n'.repeat(MAX_PARAMS + LIMITS.files + 1) + '--X--\r\n';

    expect((await raw(junk)).status).toBe(413);
  });

  it('refuses with 413 a body larger than its parts may be, data of skipped parts included', async () => {
    const skipped =
      '--X\r\nX-Nothing: here\r\n\r\n' + 'v'.repeat(2 * 1024 * 1024) + '\r\n--X--\r\n';

    const answer = await raw(skipped);

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).message).toContain('the multipart body is larger than');
  });

  it('closes the files of a client that goes away mid-file, and settles', async () => {
    const opened = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(folder);
        } catch {
          return false;
        }
      }).length;
    let settled: Promise<unknown> = Promise.resolve();
    const seen: string[] = [];
    const probe = createServer((req) => {
      const apiRequest = req as unknown as ApiRequest;
      settled = parseMultipart(
        apiRequest,
        folder,
        { ...LIMITS, fileBytes: 1e6 },
        new ParamBudget(10),
      ).catch((error: Error) => {
        seen.push(...(apiRequest.files ?? []).map((file) => file.path));
        return error.message;
      });
    });
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.write(
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=X\r\n' +
        'Content-Length: 100000\r\n\r\n--X\r\nContent-Disposition: form-data; name="medias[]"; ' +
        'filename="a.png"\r\n\r\n' +
        'x'.repeat(5000),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(opened()).toBe(1);

    socket.destroy();
    const message = await new Promise((resolve) => setTimeout(resolve, 200)).then(() => settled);
    probe.close();

    expect(message).toContain('the client closed the connection before the end of the body');
    expect(seen).toHaveLength(1);
    expect(existsSync(seen[0])).toBe(true);
    expect(opened()).toBe(0);
  });
});
