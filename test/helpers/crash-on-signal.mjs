// Preloaded (NODE_OPTIONS=--import) into a real redlock-cli by tests that need it to crash: on
// SIGUSR2 it throws an error nothing catches, from a timer, as a bug in a library's callback would.
process.on('SIGUSR2', () => {
  setImmediate(() => {
    throw new Error('injected crash');
  });
});
