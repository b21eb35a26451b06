// The UI's third-party runtime as one module: ink, react and react's JSX runtime.
// Nothing in src imports this file. It is the entry of scripts/bundle-ui.mjs, which (after tsc)
// bundles it with esbuild into dist/ui/vendor.js and points dist/ui's imports of 'ink', 'react' and
// 'react/jsx-runtime' at it: node then reads one file for the whole UI runtime instead of some 530
// (415 of them es-toolkit, whose whole compat barrel ink imports for one `throttle`), which was
// most of the REPL's start-up. One bundle also means one React, shared by ink's reconciler and by
// our components. Tests and tsx run the sources, where these names come from node_modules as usual.
export * from 'ink';
// react is CommonJS: a bundle cannot `export *` from it, so its runtime names are listed.
// The build fails if dist/ui imports a name missing here.
export {
  Children,
  Component,
  Fragment,
  PureComponent,
  StrictMode,
  Suspense,
  createContext,
  createElement,
  createRef,
  forwardRef,
  isValidElement,
  lazy,
  memo,
  startTransition,
  use,
  useCallback,
  useContext,
  useDebugValue,
  useDeferredValue,
  useEffect,
  useId,
  useImperativeHandle,
  useInsertionEffect,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  useSyncExternalStore,
  useTransition,
  version,
} from 'react';
export { jsx, jsxs } from 'react/jsx-runtime';
