// target list --json (an array) and target show --json (one of its objects): never the password.
import { z } from 'zod';

export const targetJson = z.strictObject({
  name: z.string(),
  current: z.boolean(),
  url: z.string().describe('password masked'),
  topology: z.enum(['standalone', 'sentinel', 'cluster']),
  sentinel: z.string().nullable(),
  masterName: z.string().nullable(),
  cluster: z.string().nullable(),
  password: z.enum(['none', 'saved', 'ask']).describe('where the password comes from'),
  passwordEnv: z.string().describe('the environment variable that supplies it'),
});

export const targetListJson = z.array(targetJson);
