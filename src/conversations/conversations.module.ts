import { Module } from '@nestjs/common';
import { ConversationsController } from './conversations.controller';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';

/** The caller's messages by correspondent: the console's Conversations page. */
@Module({
  controllers: [ConversationsController],
  providers: [ConversationsRepository, ConversationsService],
})
export class ConversationsModule {}
