import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../common/auth/public.decorator';
import { MediaStorage } from './media-storage';

/** A stored media's relative path: the user's folder and the name smsgw generated. */
const USER = /^\d{1,10}$/;
const FILE = /^[0-9a-f]{32}(\.[a-z0-9]{1,8})?$/;

/**
 * The files of medias, for recipients of an MMS sent through a phone that cannot send MMS: the
 * text carries their links (reference §4.7), so they are public, as RaspiSMS's `data/public`.
 * A name holds 128 random bits: a link cannot be guessed from another. Not part of the
 * envelope API; the file is written here (`@Res()`).
 */
@ApiExcludeController()
@Public()
@Controller('media')
export class MediaController {
  constructor(private readonly storage: MediaStorage) {}

  @Get(':user/:file')
  file(@Param('user') user: string, @Param('file') file: string, @Res() response: Response): void {
    if (!USER.test(user) || !FILE.test(file)) {
      response.status(404).end();
      return;
    }
    response.sendFile(this.storage.absolute(`${user}/${file}`), { dotfiles: 'deny' }, (error) => {
      if (error && !response.headersSent) {
        response.status(404).end();
      }
    });
  }
}
