import path from 'node:path';
import ts from 'typescript';
import { lintMessages } from './support/lint-text';

const ROOT = path.join(__dirname, '..');
const SNIPPETS = {
  rightRequest: `export const read = (s: ServiceClient): Promise<string> => s.request(RunsPatterns.GetRun, ref).then((r) => r.run.run_id);`,
  wrongPayload: `export const read = (s: ServiceClient) => s.request(RunsPatterns.GetRun, { user_id: 'u' });`,
  wrongAnswer: `export const read = async (s: ServiceClient): Promise<ScheduleResponse> => s.request(RunsPatterns.GetRun, ref);`,
  unknownPattern: `export const read = (s: ServiceClient) => s.request('runs.runs.nothing', ref);`,
  handlerOfAnotherMessage: `export class H {
    @HandlesRequest(RunsPatterns.GetRun)
    get(message: PutScheduleMessage): Promise<RunResponse> { return Promise.resolve({ run: message as never }); }
  }`,
  handlerOfAnotherAnswer: `export class H {
    @HandlesRequest(RunsPatterns.GetRun)
    get(message: RunRefMessage): Promise<ScheduleResponse> { return Promise.resolve({ schedule: message as never }); }
  }`,
  rightHandler: `export class H {
    @HandlesRequest(RunsPatterns.GetRun)
    get(message: RunRefMessage): Promise<RunResponse> { return Promise.resolve({ run: message as never }); }
  }`,
};

const PRELUDE = `
import { HandlesRequest, PutScheduleMessage, RunRefMessage, RunResponse, RunsPatterns, ScheduleResponse } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
const ref = { user_id: 'u', agent_id: 'a', run_id: 'r' };
`;

/**
 * Type-checks each snippet as if it were a file of runs-service, with the repository's tsconfig, in one
 * program (the files are never written to disk); answers each one's errors.
 */
function typeErrors(snippets: Record<string, string>): Record<string, string> {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
  const files = new Map(Object.entries(snippets).map(([name, code]) => [path.join(ROOT, `apps/runs-service/src/${name}.snippet.ts`), PRELUDE + code]));
  const host = ts.createCompilerHost(config.options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language) => (files.has(path.resolve(file)) ? ts.createSourceFile(file, files.get(path.resolve(file))!, language) : read(file, language));
  host.fileExists = (file) => files.has(path.resolve(file)) || ts.sys.fileExists(file);
  const program = ts.createProgram({ rootNames: [...files.keys()], options: { ...config.options, noEmit: true }, host });
  return Object.fromEntries(
    [...files.keys()].map((file, i) => [
      Object.keys(snippets)[i],
      ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '))
        .join('\n'),
    ]),
  );
}

describe('the request registry', () => {
  let errors: Record<string, string>;
  beforeAll(() => {
    errors = typeErrors(SNIPPETS);
  });

  it("types a request by its pattern: the right payload compiles and answers the pattern's answer", () => {
    expect(errors.rightRequest).toBe('');
  });

  it("refuses a payload that is not the pattern's message, an answer read as another type, and an unknown pattern", () => {
    expect(errors.wrongPayload).toMatch(/agent_id/);
    expect(errors.wrongAnswer).toMatch(/ScheduleResponse/);
    expect(errors.unknownPattern).toMatch(/runs\.runs\.nothing/);
  });

  it('refuses a handler that takes another message or answers another type, and compiles the right one', () => {
    expect(errors.handlerOfAnotherMessage).toMatch(/PutScheduleMessage/);
    expect(errors.handlerOfAnotherAnswer).toMatch(/ScheduleResponse/);
    expect(errors.rightHandler).toBe('');
  });
});

describe('npm run lint on requests', () => {
  const RULE = 'no-restricted-syntax';
  const file = 'apps/runs-service/src/runs/x.ts';
  const head = "import { RunsPatterns } from '@aas/contracts';\nimport { ServiceClient } from '@aas/platform';\ndeclare const s: ServiceClient;\n";

  it('refuses a type argument, a cast and a handler outside the registry, and allows a plain request', () => {
    const [typeArgument, cast, awaitedCast, plain, bareHandler] = lintMessages(
      [
        { filePath: file, code: `${head}export const a = s.request<unknown>(RunsPatterns.GetRun, { user_id: 'u', agent_id: 'a', run_id: 'r' });` },
        { filePath: file, code: `${head}export const a = s.request(RunsPatterns.GetRun, { user_id: 'u', agent_id: 'a', run_id: 'r' }) as Promise<unknown>;` },
        { filePath: file, code: `${head}export const a = async () => (await s.requestJson(RunsPatterns.GetRun, { user_id: 'u', agent_id: 'a', run_id: 'r' })) as string;` },
        { filePath: file, code: `${head}export const a = s.request(RunsPatterns.GetRun, { user_id: 'u', agent_id: 'a', run_id: 'r' });` },
        { filePath: file, code: "import { MessagePattern } from '@nestjs/microservices';\nexport const handles = MessagePattern('runs.runs.get');" },
      ],
      [RULE, 'no-restricted-imports'],
    );
    expect({ typeArgument, cast, awaitedCast, plain }).toEqual({
      typeArgument: [`${RULE}: A request takes its types from the request registry: no type argument.`],
      cast: [`${RULE}: A request answers the type of the request registry: no cast.`],
      awaitedCast: [`${RULE}: A request answers the type of the request registry: no cast.`],
      plain: [],
    });
    expect(bareHandler).toEqual([expect.stringContaining('no-restricted-imports: ')]);
    expect(bareHandler[0]).toMatch(/@HandlesRequest/);
  });
});
