import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyResolver } from '../common/auth/api-key.guard';
import { Setting } from './entities/setting.entity';
import { User } from './entities/user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([User, Setting])],
  providers: [
    UsersRepository,
    UsersService,
    { provide: ApiKeyResolver, useExisting: UsersService },
  ],
  exports: [UsersService, ApiKeyResolver],
})
export class UsersModule {}
