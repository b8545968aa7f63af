import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sended } from '../sended/entities/sended.entity';
import { InvalidNumbersController } from './invalid-numbers.controller';
import { InvalidNumbersRepository } from './invalid-numbers.repository';
import { InvalidNumbersService } from './invalid-numbers.service';

/** get_invalid_numbers: the caller's destinations whose messages often fail, 25 per page. */
@Module({
  imports: [TypeOrmModule.forFeature([Sended])],
  controllers: [InvalidNumbersController],
  providers: [InvalidNumbersRepository, InvalidNumbersService],
})
export class InvalidNumbersModule {}
