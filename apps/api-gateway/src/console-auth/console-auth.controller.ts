import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiCookieAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AgentsPatterns,
  CSRF_HEADER,
  ConsoleLoginRequest,
  ConsoleSession,
  ConsoleSessionResponse,
  ConsoleSetupRequest,
  ConsoleSetupStatus,
  csrfTokenFor,
  csrfTokenMatches,
  dummyPasswordHash,
  generateSessionToken,
  hashPassword,
  hashToken,
  needsRehash,
  verifyPassword,
} from '@aas/contracts';
import { Public, ServiceClient } from '@aas/platform';
import { ForbiddenError, UnauthorizedError } from '@aas/problem-details';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { CONSOLE_SESSION_SCHEME } from '../openapi/openapi-document';
import { ConsoleSessionAuthenticator } from './console-session-authenticator';
import { LoginRateLimiter } from './login-rate-limiter';
import { assertSameOrigin } from './same-origin';
import { SessionCookie } from './session-cookie';

const WRONG_LOGIN = 'The email or password is wrong';

/**
 * Sign-in for the console (docs/console.md): first-run setup, login, logout and
 * the current session. Programs use x-api-key and never these routes.
 */
@ApiTags('Console sign-in')
@Public()
@Controller('v1/console')
export class ConsoleAuthController {
  constructor(
    private readonly services: ServiceClient,
    private readonly sessions: ConsoleSessionAuthenticator,
    private readonly limiter: LoginRateLimiter,
    private readonly cookie: SessionCookie,
  ) {}

  @Get('setup')
  @ApiOperation({ summary: 'Whether the first-run page is open (no user can sign in yet)', security: [] })
  @ApiOkResponse({ type: ConsoleSetupStatus })
  @ApiProblems(429)
  setupStatus(@Req() request: FastifyRequest): Promise<ConsoleSetupStatus> {
    return this.services.request(AgentsPatterns.ConsoleSetupStatus, {}, request.id);
  }

  @Post('setup')
  @HttpCode(201)
  @ApiOperation({
    summary: 'First run: create the first user with the one-time setup token, and sign it in (sets the session cookie)',
    security: [],
  })
  @ApiCreatedResponse({ type: ConsoleSessionResponse })
  @ApiProblems(400, 401, 403, 404, 409, 429)
  async setup(
    @Body() body: ConsoleSetupRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionResponse> {
    assertSameOrigin(request);
    const attempt = await this.limiter.setup(request.ip);
    const setupTokenHash = hashToken(body.setup_token);
    // Before any hashing: a guessed setup token costs a look-up, not a password hash (401, or 404 once setup is over).
    await this.services.request(AgentsPatterns.CheckSetupToken, { setup_token_hash: setupTokenHash }, request.id);
    const token = generateSessionToken();
    const session = await this.services.request(
      AgentsPatterns.ConsoleSetup,
      { setup_token_hash: setupTokenHash, email: body.email, password_hash: await hashPassword(body.password), session_token_hash: hashToken(token) },
      request.id,
    );
    await attempt.succeeded();
    return this.signedIn(session, token, request, reply);
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with email and password (sets the session cookie); failures slow down and then refuse the address that makes them',
    security: [],
  })
  @ApiOkResponse({ type: ConsoleSessionResponse })
  @ApiProblems(400, 401, 403, 429)
  async login(
    @Body() body: ConsoleLoginRequest,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ConsoleSessionResponse> {
    assertSameOrigin(request);
    const attempt = await this.limiter.signIn(request.ip, body.email);
    const found = await this.services.request(AgentsPatterns.LoginCredentials, { email: body.email }, request.id);
    // An unknown email is checked against a dummy hash: it takes as long, and answers the same, as a wrong password.
    const matches = await verifyPassword(body.password, found?.password_hash ?? (await dummyPasswordHash()));
    if (!found || !matches) {
      await attempt.failed();
      throw new UnauthorizedError(WRONG_LOGIN);
    }
    const token = generateSessionToken();
    // A hash of older parameters (scrypt) is replaced now, while the password is at hand.
    const rehashed = needsRehash(found.password_hash) ? await hashPassword(body.password) : undefined;
    const session = await this.services.request(
      AgentsPatterns.CreateConsoleSession,
      { user_id: found.user_id, password_hash: found.password_hash, session_token_hash: hashToken(token), new_password_hash: rehashed },
      request.id,
    );
    await attempt.succeeded();
    return this.signedIn(session, token, request, reply);
  }

  @Post('logout')
  @HttpCode(204)
  @ApiOperation({ summary: 'End the console session (with its x-csrf-token header) and clear the cookie', security: [{ [CONSOLE_SESSION_SCHEME]: [] }] })
  @ApiCookieAuth(CONSOLE_SESSION_SCHEME)
  @ApiNoContentResponse({ description: 'Signed out (also when there was no session)' })
  @ApiProblems(403)
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const token = this.cookie.tokenOf(request);
    if (token) {
      const csrf = request.headers[CSRF_HEADER];
      if (typeof csrf !== 'string' || !csrfTokenMatches(token, csrf)) throw new ForbiddenError(`Signing out needs the session's ${CSRF_HEADER} header`);
      assertSameOrigin(request);
      await this.services.request(AgentsPatterns.EndConsoleSession, { session_token_hash: hashToken(token) }, request.id);
    }
    this.cookie.clear(reply, request);
  }

  @Get('session')
  @ApiOperation({ summary: 'The signed-in console user and the CSRF token for its API calls', security: [{ [CONSOLE_SESSION_SCHEME]: [] }] })
  @ApiOkResponse({ type: ConsoleSessionResponse })
  @ApiProblems(401)
  async session(@Req() request: FastifyRequest): Promise<ConsoleSessionResponse> {
    const token = this.cookie.tokenOf(request);
    if (!token) throw new UnauthorizedError('Not signed in to the console');
    return toResponse(await this.sessions.session(token, request.id), token);
  }

  private signedIn(session: ConsoleSession, token: string, request: FastifyRequest, reply: FastifyReply): ConsoleSessionResponse {
    this.cookie.set(reply, request, token, new Date(session.expires_at));
    return toResponse(session, token);
  }
}

function toResponse(session: ConsoleSession, token: string): ConsoleSessionResponse {
  return { user_id: session.user_id, email: session.email, csrf_token: csrfTokenFor(token), expires_at: session.expires_at };
}
