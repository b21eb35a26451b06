// Under --json, a command that fails without a result prints this one object on stderr, in place
// of its error line (src/core/error-json.ts builds it; src/cli/program.ts prints it).
import { z } from 'zod';
import { ERROR_CODES } from '../error-json.js';

export const errorJsonSchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(Object.values(ERROR_CODES) as [string, ...string[]]).describe('the exit code\'s name'),
    exit: z.number().describe('the exit code, as in --help'),
    message: z.string().describe('the same one line the text form prints after "redlock-cli: "'),
    stack: z.string().optional().describe('only with --debug, for an unexpected error'),
  }),
});
