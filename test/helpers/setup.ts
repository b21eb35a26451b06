// ink-testing-library loses frames under CI=true, and colour codes make assertions brittle.
delete process.env.CI;
process.env.FORCE_COLOR = '0';
