import { createServer, Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { ApiError } from '../errors/api-error';
import { parseQueryString } from '../params/query-string';
import { MultipartLimits, parseMultipart } from './multipart';
import { ApiRequest } from './request';

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
    parseMultipart(apiRequest, folder, LIMITS).then(
      (fields) => {
        const files = (apiRequest.files ?? []).map((file) => ({
          ...file,
          content: readFileSync(file.path, 'utf8'),
        }));
        res.end(JSON.stringify({ body: parseQueryString(fields), files }));
      },
      (error: unknown) => {
        res.statusCode = error instanceof ApiError ? 413 : 500;
        res.end(JSON.stringify({ message: (error as Error).message }));
      },
    );
  });
}

describe('parseMultipart', () => {
  let folder: string;
  let server: Server;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-multipart-'));
    server = serverFor(folder);
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
      parseMultipart(apiRequest, folder, LIMITS).catch(() => {
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
});
