// ink-testing-library loses frames under CI=true, and colour codes make assertions brittle.
// CI's value is kept for checks that must fail loudly in CI (the Redisson peer: redisson-peer.ts).
if (process.env.CI !== undefined) process.env.REDLOCK_CLI_CI = process.env.CI;
delete process.env.CI;
process.env.FORCE_COLOR = '0';
