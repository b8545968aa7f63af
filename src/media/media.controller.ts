import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { extname } from 'node:path';
import { Public } from '../common/auth/public.decorator';
import { FILE_NAME, MediaStorage, USER_FOLDER } from './media-storage';
import { servedType } from './media-types';

/**
 * The files of medias, for recipients of an MMS sent through a phone that cannot send MMS: the
 * text carries their links, so they are public, as the files of RaspiSMS's `data/public` were.
 * A name holds 128 random bits: a link cannot be guessed from another. Not part of the
 * envelope API; the file is written here (`@Res()`).
 *
 * Anyone may upload anything, and these files are served from smsgw's own origin, where the
 * API lives: the type comes from smsgw's table (see media-types.ts), never from the client,
 * browsers must not sniff another one, and the CSP sandbox keeps even a file a browser did
 * render from running script or reaching the origin. A stored file never changes (a new
 * upload gets a new random name), so caches may keep it.
 */
@ApiExcludeController()
@Public()
@Controller('media')
export class MediaController {
  constructor(private readonly storage: MediaStorage) {}

  @Get(':user/:file')
  file(@Param('user') user: string, @Param('file') file: string, @Res() response: Response): void {
    if (!USER_FOLDER.test(user) || !FILE_NAME.test(file)) {
      response.status(404).end();
      return;
    }
    const { type, inline } = servedType(extname(file));
    const headers = {
      'Content-Type': type,
      'Content-Disposition': inline ? 'inline' : `attachment; filename="${file}"`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'public, max-age=31536000, immutable',
    };
    // Set once the file is found, so that a 404 carries none of them.
    response.sendFile(
      this.storage.absolute(`${user}/${file}`),
      { dotfiles: 'deny', headers },
      (error) => {
        if (error && !response.headersSent) {
          response.status(404).end();
        }
      },
    );
  }
}
