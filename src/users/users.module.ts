import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyResolver } from '../common/auth/api-key.guard';
import { Quota } from './entities/quota.entity';
import { Setting } from './entities/setting.entity';
import { User } from './entities/user.entity';
import { QuotaRepository } from './quota.repository';
import { QuotaService } from './quota.service';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([User, Setting, Quota])],
  providers: [
    UsersRepository,
    UsersService,
    QuotaRepository,
    QuotaService,
    { provide: ApiKeyResolver, useExisting: UsersService },
  ],
  exports: [UsersService, QuotaService, ApiKeyResolver],
})
export class UsersModule {}
