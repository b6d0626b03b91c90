import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AnswerInputRequestMessage,
  HandlesRequest,
  InputRequestListResponse,
  InputRequestResponse,
  ListInputRequestsMessage,
  ListRunInputRequestsMessage,
  RunsPatterns,
} from '@aas/contracts';
import { InputRequestsService } from './input-requests.service';

@Controller()
export class InputRequestsHandlers {
  constructor(private readonly inputRequests: InputRequestsService) {}

  @HandlesRequest(RunsPatterns.ListRunInputRequests)
  listForRun(@Payload() message: ListRunInputRequestsMessage): Promise<InputRequestListResponse> {
    return this.inputRequests.listForRun(message);
  }

  @HandlesRequest(RunsPatterns.ListInputRequests)
  listForUser(@Payload() message: ListInputRequestsMessage): Promise<InputRequestListResponse> {
    return this.inputRequests.listForUser(message);
  }

  @HandlesRequest(RunsPatterns.AnswerInputRequest)
  answer(@Payload() message: AnswerInputRequestMessage): Promise<InputRequestResponse> {
    return this.inputRequests.answer(message);
  }
}
