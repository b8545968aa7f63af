import { Module } from '@nestjs/common';
import { ApiKeyResolver } from '../common/auth/api-key.guard';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  providers: [
    UsersRepository,
    UsersService,
    { provide: ApiKeyResolver, useExisting: UsersService },
  ],
  exports: [UsersService, ApiKeyResolver],
})
export class UsersModule {}
