import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { lockView } from '../../src/core/contracts/shapes.js';
import type { sandboxStatus } from '../../src/core/contracts/sandbox.js';
import type { scenarioShowJson } from '../../src/core/contracts/scenario.js';
import type { traceLine } from '../../src/core/contracts/trace.js';
import type { errorJsonSchema } from '../../src/core/contracts/error.js';
import type { ErrorJson } from '../../src/core/error-json.js';
import type { LockView } from '../../src/core/lock-view.js';
import type { Finding as TraceFinding } from '../../src/core/trace/checker.js';
import type { TraceEvent } from '../../src/core/trace/events.js';
import type { SandboxStatus } from '../../src/sandbox/status.js';
import type { Scenario } from '../../src/scenario/model.js';

// The types the code prints fit the contracts that describe them: a field renamed or retyped on
// one side fails `npm run typecheck` here, before any run. (A field added to the code without its
// schema is caught by json-schemas.test.ts, on real output: the schemas are strict.)

/** The code's readonly shapes, as the plain JSON values a contract describes. */
type Printed<T> = T extends readonly (infer U)[] ? Printed<U>[] : T extends object ? { -readonly [K in keyof T]: Printed<T[K]> } : T;
type Fits<Code, Contract extends z.ZodType> = Printed<Code> extends z.output<Contract> ? true : false;

const fits: Record<string, true> = {
  LockView: true satisfies Fits<LockView, typeof lockView>,
  SandboxStatus: true satisfies Fits<SandboxStatus, typeof sandboxStatus>,
  Scenario: true satisfies Fits<Scenario, typeof scenarioShowJson>,
  TraceEvent: true satisfies Fits<TraceEvent & { type: 'event' }, typeof traceLine>,
  TraceFinding: true satisfies Fits<TraceFinding & { type: 'finding' }, typeof traceLine>,
  ErrorJson: true satisfies Fits<ErrorJson, typeof errorJsonSchema>,
};

describe('the contracts and the types the code prints', () => {
  it('fit (checked by the type checker; listed here so a removed line is seen)', () => {
    expect(Object.keys(fits)).toEqual(['LockView', 'SandboxStatus', 'Scenario', 'TraceEvent', 'TraceFinding', 'ErrorJson']);
  });
});
